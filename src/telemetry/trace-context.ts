/**
 * Traces carried across the task queue (issue 37): the context of the request that created a gathering task
 * or a supplier order is stored with it ({@link currentTraceContext}), and the worker that runs it, in any
 * process, continues that trace ({@link inStoredTrace}); an event written to the outbox keeps the context of
 * its `create` span ({@link eventTraceContext}), which `./event-spans.ts` continues where it is published and
 * delivered. A leaf module — it imports only `@opentelemetry/api` and `./state.ts` — so the store may read
 * the active context here without the import arrows pointing up. Everything here is a no-op while tracing
 * is off (`./state.ts`): no span, no context object, nothing stored.
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
 * Starts and ends the `PRODUCER` span `create <topic>` of events about to be written to the outbox
 * (`src/db/contract/events.ts`) — a child of `parent` (stored text, as {@link currentTraceContext} gives)
 * when given, else of the active span — and returns its context as stored text, which the events keep in
 * the outbox (`outbox_events.trace_context`) so the relay publishes them in that trace, from whichever
 * process (`./event-spans.ts`). Its attributes name the subject (`gateway.event.subject_id`: the request
 * or order id) or, for a batch, the subjects (`gateway.event.subject_ids`) and their count
 * (`messaging.batch.message_count`).
 *
 * Called by the store where it builds events (`src/db/shared/events.ts`, `src/db/shared/orders.ts`) and by
 * a caller that hands the store the context of events the store writes in SQL or for several traces at once
 * (a gathering completion batch). A transaction that rolls back leaves a `create` span with no `publish`.
 *
 * @returns null, and no span, when tracing is off, there are no subjects, or there is no trace to continue
 *   (no active span, and `parent` null): an event written outside any trace stays outside.
 */
export function eventTraceContext(
  topic: string,
  subjectIds: readonly string[],
  parent?: string | null,
): string | null {
  if (!tracingOn() || subjectIds.length === 0) return null;
  const parentContext =
    parent === undefined
      ? context.active()
      : parent === null
        ? null
        : propagation.extract(ROOT_CONTEXT, carrierOf(parent));
  if (parentContext === null || trace.getSpanContext(parentContext) === undefined) return null;
  const span = trace.getTracer(SCOPE).startSpan(
    `create ${topic}`,
    {
      kind: SpanKind.PRODUCER,
      attributes: {
        'messaging.system': 'outbox',
        'messaging.operation.type': 'create',
        'messaging.operation.name': 'create',
        'messaging.destination.name': topic,
        ...subjectAttributes(subjectIds),
      },
    },
    parentContext,
  );
  const carrier: Record<string, string> = {};
  propagation.inject(trace.setSpan(ROOT_CONTEXT, span), carrier);
  span.end();
  return carrier.traceparent ? JSON.stringify(carrier) : null;
}

/** A span's attributes naming one subject, or several and their count. */
export function subjectAttributes(subjectIds: readonly string[]): Attributes {
  return subjectIds.length === 1
    ? { 'gateway.event.subject_id': subjectIds[0] }
    : { 'gateway.event.subject_ids': [...subjectIds], 'messaging.batch.message_count': subjectIds.length };
}

/** The instrumentation scope's tracer, for the service's other span helpers (`./event-spans.ts`). */
export function gatewayTracer() {
  return trace.getTracer(SCOPE);
}

/**
 * Runs `work` with no active span, so that what it schedules (timers, wake-ups of a relay or a worker) does
 * not join the caller's trace; without tracing, just `work()`.
 */
export function outsideTrace<T>(work: () => T): T {
  return tracingOn() ? context.with(ROOT_CONTEXT, work) : work();
}

/** The stored headers; an unreadable text gives none (a new trace rather than a failed task). */
export function carrierOf(stored: string): Record<string, string> {
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
