import type { TestProject } from 'vitest/node';
import { migratePostgres } from '../src/db/postgres/migrate.js';
import { openPostgresPool } from '../src/db/postgres/pool.js';
import { createTestDatabase, startThrowawayPostgres } from './helpers/postgres-server.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Admin URL of the PostgreSQL server of this test run (see `test/helpers/postgres-server.ts`). */
    postgresAdminUrl: string;
    /** A migrated database on that server that each test database is created from (`test/helpers/store.ts`). */
    postgresTemplate: string;
  }
}

/**
 * Once per run of the `postgres` project: the PostgreSQL server the tests use — `TEST_POSTGRES_URL` (an
 * existing server's admin URL; each test creates and drops databases of its own there), or else a
 * throwaway cluster started here and stopped at the end — and a migrated template database on it.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const existing = process.env.TEST_POSTGRES_URL;
  const server = existing
    ? { adminUrl: existing, stop: async () => undefined }
    : await startThrowawayPostgres();
  const template = await createTestDatabase(server.adminUrl);
  const pool = openPostgresPool(template.url, 1);
  try {
    await migratePostgres(pool);
  } finally {
    await pool.end();
  }
  project.provide('postgresAdminUrl', server.adminUrl);
  project.provide('postgresTemplate', new URL(template.url).pathname.slice(1));
  return async () => {
    await template.drop();
    await server.stop();
  };
}
