/**
 * The spans of an event's way from the outbox to its subscribers (issue 37), after its `create` span
 * (`eventTraceContext` in `./trace-context.ts`, whose context the outbox keeps with the event):
 * - the relay publishes it in a `PRODUCER` span `publish <topic>` in that trace ({@link inPublishSpans}),
 *   and the bus message carries the publish span's W3C context ({@link TraceCarrier}) — in the Redis stream
 *   entry in the shared mode, beside the payload in process;
 * - each process that delivers it to subscribers of its own records a `CONSUMER` span `process <topic>`
 *   whose parent is the message's context ({@link inProcessSpan}).
 * Attributes follow OpenTelemetry's messaging conventions (`messaging.system`, `messaging.operation.type`
 * `send` / `process`, `messaging.operation.name`, `messaging.destination.name`: the topic, e.g.
 * `availabilityRequest:changed`). An event with no stored context (tracing off where it was written, or
 * written in no trace) gets no span and no carrier: it starts no trace of its own. Tracing off, each helper
 * is one boolean test.
 */
import {
  type Attributes,
  propagation,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  trace,
} from '@opentelemetry/api';
import { tracingOn } from './state.js';
import { carrierOf, gatewayTracer, subjectAttributes } from './trace-context.js';

/** A message's trace context on the bus: the W3C Trace Context headers (`traceparent`, `tracestate`). */
export type TraceCarrier = Record<string, string>;

/** What {@link inPublishSpans} needs of an event (an `OutboxEvent`): its topic, subject and trace context. */
export interface TracedEvent {
  readonly topic: string;
  readonly subjectId: string;
  /** As the outbox keeps it (`OutboxEventOf.traceContext`); null: no span. */
  readonly traceContext: string | null;
}

/**
 * Runs `publish` — which sends `events` in one go (one Redis pipeline) — inside `PRODUCER` spans
 * `publish <topic>`: one per stored trace context and topic among `events` (a create of 100 requests wrote
 * 100 events in one `create` span: they are published in one span, `messaging.batch.message_count` 100),
 * each a child of that context. `publish` gets, per event in the order given, the carrier of its span to
 * send with the message (undefined for an event without a context; an empty array when tracing is off).
 * A span whose events were not all published is marked an error.
 *
 * @param system `messaging.system`: the bus (`redis`, or `in-process`).
 * @param sent whether the event at an index is sent at all (one with nothing to publish gets no span).
 * @returns what `publish` resolved to; a rejection ends the spans as errors and is passed on.
 */
export async function inPublishSpans(
  system: string,
  events: readonly TracedEvent[],
  sent: (index: number) => boolean,
  publish: (carriers: readonly (TraceCarrier | undefined)[]) => Promise<boolean[]>,
): Promise<boolean[]> {
  if (!tracingOn()) return publish([]);
  const groups = new Map<string, { topic: string; context: string; indexes: number[] }>();
  for (const [index, event] of events.entries()) {
    if (event.traceContext === null || !sent(index)) continue;
    const key = `${event.topic}\n${event.traceContext}`;
    const group = groups.get(key);
    if (group) group.indexes.push(index);
    else groups.set(key, { topic: event.topic, context: event.traceContext, indexes: [index] });
  }
  const carriers: (TraceCarrier | undefined)[] = [];
  const spans: { span: Span; indexes: number[] }[] = [];
  for (const { topic, context, indexes } of groups.values()) {
    const span = gatewayTracer().startSpan(
      `publish ${topic}`,
      {
        kind: SpanKind.PRODUCER,
        attributes: {
          'messaging.system': system,
          'messaging.operation.type': 'send',
          'messaging.operation.name': 'publish',
          'messaging.destination.name': topic,
          ...subjectAttributes(indexes.map((index) => (events[index] as TracedEvent).subjectId)),
        },
      },
      propagation.extract(ROOT_CONTEXT, carrierOf(context)),
    );
    const carrier: TraceCarrier = {};
    propagation.inject(trace.setSpan(ROOT_CONTEXT, span), carrier);
    for (const index of indexes) carriers[index] = carrier;
    spans.push({ span, indexes });
  }
  let results: boolean[];
  try {
    results = await publish(carriers);
  } catch (error) {
    for (const { span } of spans) {
      span.recordException(error instanceof Error ? error : String(error));
      span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    }
    throw error;
  }
  for (const { span, indexes } of spans) {
    if (indexes.some((index) => results[index] !== true))
      span.setStatus({ code: SpanStatusCode.ERROR, message: 'not published' });
    span.end();
  }
  return results;
}

/**
 * Runs `work` — the delivery of one received event to this process's subscribers — inside a `CONSUMER`
 * span `process <topic>` whose parent is the message's context: once per event and process, however many
 * subscribers it reaches (one span per subscriber message would cost a span per SSE stream and WebSocket,
 * and say nothing more). The subscribers' writes that run synchronously in `work` are inside it.
 *
 * @param carrier the message's trace context; absent, just `work()`.
 * @param attributes more attributes, e.g. `messaging.message.id` (the bus's id of the event).
 */
export function inProcessSpan<T>(
  system: string,
  topic: string,
  carrier: TraceCarrier | undefined,
  attributes: Attributes,
  work: () => T,
): T {
  if (!tracingOn() || carrier === undefined || !carrier.traceparent) return work();
  return gatewayTracer().startActiveSpan(
    `process ${topic}`,
    {
      kind: SpanKind.CONSUMER,
      attributes: {
        'messaging.system': system,
        'messaging.operation.type': 'process',
        'messaging.operation.name': 'process',
        'messaging.destination.name': topic,
        ...attributes,
      },
    },
    propagation.extract(ROOT_CONTEXT, carrier),
    (span) => {
      try {
        return work();
      } finally {
        span.end();
      }
    },
  );
}
