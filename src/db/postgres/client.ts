import { drizzle, type NodePgDatabase } from 'drizzle-orm/node-postgres';
import type pg from 'pg';
import * as schema from './schema/index.js';

/** The drizzle handle every `src/db/postgres` query function takes (node-postgres, a pool behind it). */
export type PostgresDb = NodePgDatabase<typeof schema> & { $client: pg.Pool };

/** A drizzle handle on `pool`, with the PostgreSQL tables and snake_case column names. */
export function postgresDb(pool: pg.Pool): PostgresDb {
  return drizzle({ client: pool, schema, casing: 'snake_case' });
}
