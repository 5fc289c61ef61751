import type { TestProject } from 'vitest/node';
import { startThrowawayPostgres } from './helpers/postgres-server.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Admin URL of the PostgreSQL server of this test run (see `test/helpers/postgres-server.ts`). */
    postgresAdminUrl: string;
  }
}

/**
 * Once per test run: the PostgreSQL server the store's tests use — `TEST_POSTGRES_URL` (an existing
 * server's admin URL; each test file creates and drops a database of its own there), or else a throwaway
 * cluster started here and stopped at the end.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const existing = process.env.TEST_POSTGRES_URL;
  if (existing) {
    project.provide('postgresAdminUrl', existing);
    return async () => undefined;
  }
  const server = await startThrowawayPostgres();
  project.provide('postgresAdminUrl', server.adminUrl);
  return () => server.stop();
}
