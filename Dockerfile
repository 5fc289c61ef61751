# The Connectivity Gateway's container image (issue 37): the compiled build, production dependencies only,
# run by a non-root user on a read-only root filesystem; the SQLite file (the embedded default) on the
# /data volume. `docker build -t connectivity-gateway:0.1.0 .`; README.md, "Deploying on Kubernetes".
#
# The image's files are assembled by scripts/assemble-image.ts — the build (`npm run build`), data/,
# package.json and the production packages of the lockfile — which test/deploy/read-only-start.test.ts runs
# into a temporary folder and starts there, read-only, as an unprivileged user.

# Node.js 24 LTS (supported until 2028-04-30) on Debian 13 in both stages (issue 47).
#
# Build stage: every dependency (tsc and tsx for the build). No compiler: better-sqlite3 13 ships its
# Node-API binaries (linux-x64, linux-arm64) inside its npm package. npm ci also installs the Node.js runtime
# package of the platform (README, "Runtime"); scripts/assemble-image.ts leaves it out of the image, which runs
# the base image's node.
FROM node:24-trixie-slim AS build
WORKDIR /build
# swagger-ui-dist's dependency @scarf/scarf reports installs unless told not to.
ENV SCARF_ANALYTICS=false
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY scripts ./scripts
COPY data ./data
COPY src ./src
RUN npx tsx scripts/assemble-image.ts --out-dir /image

# Run stage: node and the assembled files, nothing else; owned by root, so the `node` user (uid 1000) that
# runs them cannot change them even on a writable filesystem.
FROM node:24-trixie-slim
ENV NODE_ENV=production \
  HOST=0.0.0.0 \
  DATABASE_URL=/data/gateway.db
WORKDIR /app
COPY --from=build /image /app
RUN mkdir /data && chown 1000:1000 /data
VOLUME /data
USER 1000:1000
# PORT (4000 by default): the API and the probes; METRICS_PORT, when set (9464 in deploy/kubernetes): /metrics.
EXPOSE 4000 9464
# npm run start:prod; `dist/worker-main.js` as the command runs a worker (npm run worker:prod), and
# `docker exec … node dist/cli/main.js …` the operator CLI.
ENTRYPOINT ["node", "--max-semi-space-size=32"]
CMD ["dist/main.js"]
