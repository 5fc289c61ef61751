/**
 * Which SQLite errors mean the file cannot take the work now — not the caller's fault, and the statement's
 * transaction rolled back (issue 48). The store turns them into a `DependencyUnavailableError` (503).
 */

/**
 * Primary result codes (https://sqlite.org/rescode.html) of a database that is busy or out of resources;
 * better-sqlite3 reports the extended code (`SQLITE_BUSY_SNAPSHOT`, `SQLITE_IOERR_WRITE`, …), matched by
 * its primary prefix: `SQLITE_BUSY` (another connection held the lock past the busy timeout), `SQLITE_LOCKED`,
 * `SQLITE_FULL` (the disk, or `max_page_count`), `SQLITE_IOERR`, `SQLITE_NOMEM`, `SQLITE_CANTOPEN`,
 * `SQLITE_PROTOCOL`.
 */
const primaryCodes = [
  'SQLITE_BUSY',
  'SQLITE_LOCKED',
  'SQLITE_FULL',
  'SQLITE_IOERR',
  'SQLITE_NOMEM',
  'SQLITE_CANTOPEN',
  'SQLITE_PROTOCOL',
];

/** Whether `error` — or an error it wraps as `cause` — is an SQLite error of {@link primaryCodes}. */
export function sqliteUnavailable(error: unknown): boolean {
  for (let current = error, depth = 0; current instanceof Error && depth < 4; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') {
      const matches = (primary: string) => code === primary || code.startsWith(`${primary}_`);
      if (primaryCodes.some(matches)) return true;
    }
    current = current.cause;
  }
  return false;
}
