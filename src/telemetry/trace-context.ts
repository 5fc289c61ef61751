/**
 * Traces carried across the task queue (issue 37): the context of the request that created a gathering task
 * or a supplier order is stored with it ({@link currentTraceContext}), and the worker that runs it, in any
 * process, continues that trace ({@link inStoredTrace}). Everything here is a no-op while tracing is off
 * (`./state.ts`): no span, no context object, nothing stored.
 */
import {
  type Attributes,
  context,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
} from '@opentelemetry/api';
import { tracingOn } from './state.js';

/** The instrumentation scope of the service's own spans. */
const SCOPE = 'connectivity-gateway';

/**
 * The active trace context as stored text: the W3C Trace Context headers the configured propagator writes
 * (`traceparent`, and `tracestate` when there is one), as a JSON object, e.g.
 * `{"traceparent":"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"}`.
 *
 * @returns null when tracing is off or no span is active.
 */
export function currentTraceContext(): string | null {
  if (!tracingOn()) return null;
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return carrier.traceparent ? JSON.stringify(carrier) : null;
}

/**
 * Runs `work` inside a new span `name` whose parent is the stored context (from
 * {@link currentTraceContext}; a new trace when null or unreadable), so that what `work` does — supplier
 * calls with their `traceparent`, queries, log lines — belongs to the trace of the request that queued
 * it. The span ends when `work` settles and is marked an error when it rejects. Without tracing, just
 * `work()`.
 *
 * @param kind `CONSUMER` for a queued task taken up by a worker (OpenTelemetry's messaging conventions).
 */
export function inStoredTrace<T>(
  stored: string | null,
  name: string,
  attributes: Attributes,
  work: () => Promise<T>,
  kind: SpanKind = SpanKind.CONSUMER,
): Promise<T> {
  if (!tracingOn()) return work();
  const parent = stored === null ? ROOT_CONTEXT : propagation.extract(ROOT_CONTEXT, carrierOf(stored));
  return trace.getTracer(SCOPE).startActiveSpan(name, { kind, attributes }, parent, async (span) => {
    try {
      return await work();
    } catch (error) {
      span.recordException(error instanceof Error ? error : String(error));
      span.setStatus({ code: SpanStatusCode.ERROR });
      throw error;
    } finally {
      span.end();
    }
  });
}

/**
 * Records that the active operation wrote events of `topic` to the outbox (`src/db/contract/events.ts`):
 * one `PRODUCER` span `create <topic>` in the active trace, so the trace of a request shows the events its
 * work caused (the relay publishes them after the commit, possibly from another process). Its attributes
 * name the subject (`gateway.event.subject_id`: the request or order id) or, for a batch, the subjects
 * (`gateway.event.subject_ids`) and their count (`messaging.batch.message_count`).
 */
export function recordEventWritten(topic: string, subjectIds: readonly string[]): void {
  if (!tracingOn() || subjectIds.length === 0) return;
  trace
    .getTracer(SCOPE)
    .startSpan(`create ${topic}`, {
      kind: SpanKind.PRODUCER,
      attributes: {
        'messaging.system': 'outbox',
        'messaging.operation.type': 'create',
        'messaging.destination.name': topic,
        ...(subjectIds.length === 1
          ? { 'gateway.event.subject_id': subjectIds[0] }
          : {
              'gateway.event.subject_ids': [...subjectIds],
              'messaging.batch.message_count': subjectIds.length,
            }),
      },
    })
    .end();
}

/** The stored headers; an unreadable text gives none (a new trace rather than a failed task). */
function carrierOf(stored: string): Record<string, string> {
  try {
    const parsed: unknown = JSON.parse(stored);
    if (parsed === null || typeof parsed !== 'object') return {};
    return Object.fromEntries(
      Object.entries(parsed).filter((entry): entry is [string, string] => typeof entry[1] === 'string'),
    );
  } catch {
    return {};
  }
}
