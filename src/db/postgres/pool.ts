import pg from 'pg';

/**
 * A connection pool of the PostgreSQL store (node-postgres). `size` is the most connections it opens at
 * once (`DATABASE_POOL_SIZE`); an idle connection is closed after 30 s, and a connection attempt that
 * takes over 10 s fails instead of hanging a request.
 */
export function openPostgresPool(url: string, size: number): pg.Pool {
  return new pg.Pool({
    connectionString: url,
    max: size,
    idleTimeoutMillis: 30_000,
    connectionTimeoutMillis: 10_000,
    application_name: 'connectivity-gateway',
  });
}
