import { pino } from 'pino';

/** The service's structured logger (pino). */
export type Logger = pino.Logger;

/**
 * Creates the root logger, writing JSON lines to standard output. Credentials and tokens are redacted
 * wherever they appear in a logged object.
 *
 * Each line is written synchronously, one `write(2)` when it is logged, as Node itself writes standard
 * output to files and pipes on Linux (https://nodejs.org/api/process.html#a-note-on-process-io), and as
 * pino offers with `sync: true` (https://github.com/pinojs/pino/blob/main/docs/asynchronous.md): no line
 * is lost when the process dies, and a line does not go through libuv's thread pool and back to the event
 * loop, as it did with pino's asynchronous default (BENCHMARKS.md, "Log lines written synchronously").
 */
export function createLogger(level: string): Logger {
  return pino(
    {
      level,
      redact: {
        paths: [
          'req.headers["x-auth-token"]',
          'req.headers.authorization',
          'req.headers.cookie',
          '*.client_secret',
          '*.auth_token',
          '*.auth_refresh_token',
        ],
        censor: '[redacted]',
      },
    },
    pino.destination({ dest: 1, sync: true }),
  );
}
