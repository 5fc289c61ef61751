import { fileURLToPath } from 'node:url';
import { configDefaults, defineConfig } from 'vitest/config';

// The tests run on the service's runtime (`engines.node`, Node.js 24): through npm (`npm test`, `npx vitest`)
// that is node_modules/.bin/node where the machine's own node is older (README, "Runtime").
const nodeMajor = Number(process.versions.node.split('.')[0]);
if (nodeMajor < 24)
  throw new Error(
    `the tests run on Node.js 24 or newer, not ${process.version} (${process.execPath}): run them through npm ` +
      '(npm test, npx vitest), which puts the Node.js of node_modules/.bin first',
  );

/** Tests that touch no store: run once, in the SQLite project. */
const storeless = [
  'test/config.test.ts',
  'test/ids.test.ts',
  'test/runtime-check.test.ts',
  'test/telemetry/sdk-env.test.ts',
  'test/telemetry/untraced-loads.test.ts',
  'test/imports.test.ts',
  'test/geo/**',
  'test/bench/stats.test.ts',
  'test/bench/sitting.test.ts',
  'test/bench/process.test.ts',
  'test/server/metrics-process.test.ts',
  // Starts `src/main.ts` on a SQLite file of its own, whatever the project.
  'test/server/start-line.test.ts',
  'test/gathering/pricing.test.ts',
  'test/resolvers/validation.test.ts',
  'test/db/migrations-drift.test.ts',
  'test/db/store.test.ts',
  'test/db/order-rules.test.ts',
  'test/redis/**',
  'test/auth/**',
  'test/gathering/simulator/sonata-*.test.ts',
  'test/gathering/sources/mef-sonata/**',
  // The Sonata ordering client against its sellers; billing-account.test.ts uses the store.
  'test/ordering/mef-sonata/order-*.test.ts',
  'test/ordering/mef-sonata/ordering-client.test.ts',
  'test/ordering/mef-sonata/simulated-seller.test.ts',
  'test/ordering/sonata-requote.test.ts',
  'test/ordering/mef-sonata/cancel-*.test.ts',
  // Real processes behind nginx on a PostgreSQL cluster of their own, whatever the project.
  'test/scale-out/**',
  // The deployment files (issue 37): kubectl's renderings and the image's files started on SQLite.
  'test/deploy/**',
];

export default defineConfig({
  resolve: {
    // graphql has a "module" field and no "exports": vite would load its ESM build for our code while
    // Node gives Yoga and Pothos the CommonJS one. One copy, as in production.
    alias: [
      {
        find: /^graphql$/,
        replacement: fileURLToPath(new URL('./node_modules/graphql/index.js', import.meta.url)),
      },
    ],
  },
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // Vitest's default is one worker fewer than the cores: one on the 2-core CI machine. Most of a test's
    // time is waiting on servers, processes and sockets, so two files at a time keep CI inside its budget.
    maxWorkers: 2,
    // The JSON report is what .ci/run counts for its closing "N passed, N failed" line.
    reporters: ['default', 'json'],
    outputFile: { json: 'test-results/vitest.json' },
    // The whole suite proves both stores in one run: every test that touches the store runs on SQLite, then
    // again on PostgreSQL (`TEST_DATABASE`, read by test/helpers/store.ts), each test on a database of its own.
    projects: [
      {
        extends: true,
        // The SQLite → PostgreSQL copy needs the PostgreSQL project's server: it runs there only.
        test: {
          name: 'sqlite',
          exclude: [...configDefaults.exclude, 'test/db/postgres/**', 'test/db/copy/**'],
        },
      },
      {
        extends: true,
        test: {
          name: 'postgres',
          env: { TEST_DATABASE: 'postgres' },
          exclude: [...configDefaults.exclude, 'test/db/sqlite/**', ...storeless],
          // A PostgreSQL server for the run (TEST_POSTGRES_URL, or a throwaway cluster started and stopped
          // here) with a migrated template database.
          globalSetup: ['test/global-setup.ts'],
        },
      },
    ],
  },
});
