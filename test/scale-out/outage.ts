import pg from 'pg';

/*
 * What the PostgreSQL outage tests share (issue 48): the problem every request needing the store gets
 * meanwhile, and a query on a connection of its own (a test's long-lived connection would be cut by the
 * outage too).
 */

/** The problem+json body of a request that needed the store while it was down. */
export const storeUnavailableProblem = {
  type: 'urn:connectivity-gateway:problem:unavailable',
  title: 'Service unavailable',
  status: 503,
  detail: 'The database is unavailable; try again in a few seconds.',
};

/** Runs one query on a connection of its own to `databaseUrl` and closes it. */
export async function queryOnce<R extends pg.QueryResultRow>(
  databaseUrl: string,
  text: string,
  values: unknown[] = [],
): Promise<R[]> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    return (await client.query<R>(text, values)).rows;
  } finally {
    await client.end();
  }
}
