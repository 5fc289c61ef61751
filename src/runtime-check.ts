/**
 * Refuses to start the service on a Node.js older than the one it is built for (`engines.node` in
 * `package.json`: 24, the LTS line supported until 2028-04-30), with a message that says what to run
 * instead. Imported first by every entry point (`main.ts`, `worker-main.ts`, `cli/main.ts`), so it runs before
 * any other module: better-sqlite3 13's Node-API binary crashes an older Node with a segmentation fault
 * when it loads, which would tell an operator nothing.
 *
 * On a machine whose own `node` is older, `npm ci` installs Node 24 into `node_modules/.bin/node` (the
 * optional `node-linux-*` packages; README, "Runtime"), and the npm scripts run it; a `node` typed by hand
 * is the machine's own.
 */

/** The oldest Node.js major the service runs on; `test/runtime-check.test.ts` holds it to `engines.node`. */
export const REQUIRED_NODE_MAJOR = 24;

const running = Number(process.versions.node.split('.')[0]);
if (running < REQUIRED_NODE_MAJOR) {
  process.stderr.write(
    `The Connectivity Gateway needs Node.js ${REQUIRED_NODE_MAJOR} or newer; this is ${process.version} ` +
      `(${process.execPath}). Start it through npm (npm start, npm run start:prod, npm run cli -- …), which runs ` +
      `the Node.js that npm ci installed in node_modules/.bin, or run that one yourself: npx node dist/main.js.\n`,
  );
  process.exit(1);
}
