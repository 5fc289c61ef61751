/**
 * Which PostgreSQL errors mean the server cannot be reached or cannot take the work now — not the caller's
 * fault, and nothing committed (issue 48). The store turns them into a `DependencyUnavailableError` (503).
 */

/** Socket errors of the connection (Node's `error.code`), while connecting or on an open connection. */
const socketCodes = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/**
 * SQLSTATEs of a server that is going away or overloaded (PostgreSQL 15, Appendix A "Error Codes"):
 * `57P01` admin_shutdown, `57P02` crash_shutdown, `57P03` cannot_connect_now (starting or recovering),
 * `57P05` idle_session_timeout, `53100` disk_full, `53200` out_of_memory, `53300` too_many_connections,
 * `58030` io_error. Class `08` (connection exception) is matched by its prefix.
 */
const serverCodes = new Set(['57P01', '57P02', '57P03', '57P05', '53100', '53200', '53300', '58030']);

/**
 * node-postgres's own errors without a code (pg 8): a connection that ended under a query, a connection
 * attempt past `connectionTimeoutMillis`, a client broken by an earlier connection error.
 */
const driverMessages = [
  /^Connection terminated/,
  /^timeout exceeded when trying to connect/,
  /is not queryable$/,
  /^Query read timeout$/,
];

/**
 * Whether `error` — or an error it wraps as `cause` (drizzle wraps the driver's error in a
 * `DrizzleQueryError`) — says PostgreSQL is unreachable, restarting, shutting down or out of resources.
 */
export function postgresUnavailable(error: unknown): boolean {
  for (let current = error, depth = 0; current instanceof Error && depth < 4; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') {
      if (socketCodes.has(code) || serverCodes.has(code) || /^08[0-9A-Z]{3}$/.test(code)) return true;
    } else {
      const { message } = current;
      if (driverMessages.some((pattern) => pattern.test(message))) return true;
    }
    current = current.cause;
  }
  return false;
}
