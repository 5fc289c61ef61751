import { createRequire } from 'node:module';
import { isSpanContextValid, trace } from '@opentelemetry/api';
import { pino } from 'pino';
import type PinoPretty from 'pino-pretty';
import { tracingOn } from './telemetry/state.js';

/** The service's structured logger (pino). */
export type Logger = pino.Logger;

/** How log lines are written: `json` (one JSON object a line) or `pretty` (readable lines for a person). */
export type LogFormat = 'json' | 'pretty';

/**
 * The log format for a process: readable lines when standard output is a terminal and `NODE_ENV` is not
 * `production` (a newcomer's `npm start`, issue 37); JSON lines everywhere else — to files, pipes, log
 * collectors, and always in production, where whatever reads the output expects one JSON object a line.
 *
 * @param where.isTTY `process.stdout.isTTY` (undefined off a terminal).
 * @param where.nodeEnv the configured `NODE_ENV`.
 */
export function chooseLogFormat(where: {
  isTTY: boolean | undefined;
  nodeEnv: string | undefined;
}): LogFormat {
  return where.isTTY === true && where.nodeEnv !== 'production' ? 'pretty' : 'json';
}

/**
 * Creates the root logger on standard output. Credentials and tokens are redacted wherever they appear in
 * a logged object. Each line carries `trace_id` and `span_id` when it is logged inside an OpenTelemetry
 * span (tracing configured, see `src/telemetry/register.ts`); without tracing there is never an active
 * span and the fields are absent.
 *
 * JSON lines are written synchronously, one `write(2)` when logged, as Node itself writes standard output
 * to files and pipes on Linux (https://nodejs.org/api/process.html#a-note-on-process-io), and as pino
 * offers with `sync: true` (https://github.com/pinojs/pino/blob/main/docs/asynchronous.md): no line is
 * lost when the process dies, and a line does not go through libuv's thread pool and back to the event
 * loop, as it did with pino's asynchronous default (BENCHMARKS.md, "Log lines written synchronously").
 * Readable lines go through pino-pretty's stream in this thread, also written synchronously (no worker
 * thread transport), coloured where the terminal supports it and `NO_COLOR` is unset.
 *
 * @param level pino's level name (`LOG_LEVEL`).
 * @param options.format `json` unless told; see {@link chooseLogFormat}.
 */
export function createLogger(level: string, options: { format?: LogFormat } = {}): Logger {
  const format = options.format ?? 'json';
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
      // Only a tracing process has spans to name: without one, lines skip the mixin's work altogether.
      ...(tracingOn()
        ? {
            mixin: traceFields,
            // pino's default merge writes the line's fields into the mixin's object; the shared empty one stays empty.
            mixinMergeStrategy: (fields: object, mixed: object) =>
              mixed === noFields ? fields : Object.assign(mixed, fields),
          }
        : {}),
    },
    format === 'pretty'
      ? prettyStream()({
          sync: true,
          destination: 1,
          translateTime: 'SYS:HH:MM:ss.l',
          ignore: 'pid,hostname',
        })
      : pino.destination({ dest: 1, sync: true }),
  );
}

/**
 * pino-pretty, loaded on the first readable logger only: a production process (JSON lines) never loads it
 * or its dependencies.
 */
function prettyStream(): typeof PinoPretty {
  return createRequire(import.meta.url)('pino-pretty') as typeof PinoPretty;
}

const noFields = {};

/** The active span's ids as log fields (the names OpenTelemetry's log data model gives them). */
function traceFields(): Record<string, string> {
  const span = trace.getActiveSpan();
  if (span === undefined) return noFields;
  const spanContext = span.spanContext();
  if (!isSpanContextValid(spanContext)) return noFields;
  return { trace_id: spanContext.traceId, span_id: spanContext.spanId };
}
