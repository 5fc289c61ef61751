import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { parse as parseCookie } from 'cookie';
import { errors as joseErrors, jwtVerify } from 'jose';
import { z } from 'zod';
import type { Services } from '../context.js';
import { AppError } from '../errors.js';
import type { AvailabilityRequestEvent } from '../events.js';
import { availabilityRequestTopic } from '../resolvers/event-stream-token.js';
import { availabilityRequestDocument } from './documents.js';
import { sendProblem } from './router.js';

/** One event as sent: its id and the serialised `data` line. */
interface StreamEvent {
  id: string;
  data: string;
}

/** The event stream of one instance: its bounded history and the connections reading it. */
interface InstanceStream {
  history: StreamEvent[];
  clients: Set<ServerResponse>;
  stop(): Promise<void>;
}

const mercureClaims = z.object({
  mercure: z.object({ subscribe: z.array(z.string()) }),
});

/**
 * A Mercure-compatible subscriber endpoint (`GET /.well-known/mercure?topic=<instance_id>/availability_request`)
 * for REST callers, authorised by the `sse_jwt` (DESIGN.md, "Event stream (REST)"; Mercure spec,
 * "Subscription" and "Authorization"). Each event's `data` is the availability request exactly as one
 * list record; every event has an `id`, and `Last-Event-ID` (header or `lastEventID` query parameter)
 * replays what followed it from a bounded per-instance history.
 */
export class MercureHub {
  /** Ids carry a per-process prefix, so an id from before a restart is never mistaken for a new one. */
  private readonly bootId = randomUUID().slice(0, 8);
  private sequence = 0;
  private readonly streams = new Map<string, InstanceStream>();
  private closed = false;

  constructor(
    private readonly services: Services,
    private readonly options: { historySize: number; keepAliveMs: number },
  ) {}

  /** Connections open right now, over all instances. */
  get connectionCount(): number {
    let count = 0;
    for (const stream of this.streams.values()) count += stream.clients.size;
    return count;
  }

  /**
   * Serves one subscriber. Answers 401 problem+json (and sends no event) for a missing, expired, badly
   * signed or `alg: none` token, and for a topic the token does not grant.
   */
  async handle(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    try {
      if (req.method !== 'GET') {
        res.setHeader('allow', 'GET');
        throw new AppError('METHOD_NOT_ALLOWED', 'Subscribe with GET.');
      }
      const topics = url.searchParams.getAll('topic');
      if (topics.length !== 1) {
        throw new AppError('VALIDATION', 'Give exactly one topic: <instance_id>/availability_request.', [
          { path: '/topic', message: 'exactly one topic is required' },
        ]);
      }
      const topic = topics[0] ?? '';
      const granted = await this.grantedTopics(req, url);
      const instanceId = topic.endsWith('/availability_request')
        ? topic.slice(0, -'/availability_request'.length)
        : '';
      if (!granted.includes(topic) || availabilityRequestTopic(instanceId) !== topic) {
        throw new AppError('UNAUTHENTICATED', 'The token does not grant this topic.');
      }
      if (this.closed) throw new AppError('INTERNAL', 'The event stream is shutting down.');
      this.subscribe(instanceId, req, res, url);
    } catch (error) {
      sendProblem(res, error, this.services.logger);
    }
  }

  /** Ends every stream and stops listening to the event bus. */
  async close(): Promise<void> {
    this.closed = true;
    for (const stream of this.streams.values()) {
      await stream.stop();
      for (const client of stream.clients) client.end();
      stream.clients.clear();
    }
    this.streams.clear();
  }

  /** Topics the request's token grants; every failure to verify is one 401. */
  private async grantedTopics(req: IncomingMessage, url: URL): Promise<string[]> {
    const header = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '')?.[1];
    const token =
      header ??
      url.searchParams.get('authorization') ??
      parseCookie(req.headers.cookie ?? '').mercureAuthorization ??
      null;
    if (!token)
      throw new AppError(
        'UNAUTHENTICATED',
        'Send the sse_jwt as a Bearer token, authorization parameter or cookie.',
      );
    try {
      const { payload } = await jwtVerify(token, this.services.signingKey, {
        algorithms: ['HS256'],
        currentDate: this.services.clock.now(),
      });
      return mercureClaims.parse(payload).mercure.subscribe;
    } catch (error) {
      if (error instanceof joseErrors.JOSEError || error instanceof z.ZodError) {
        throw new AppError('UNAUTHENTICATED', 'The event-stream token is invalid or expired.');
      }
      throw error;
    }
  }

  private subscribe(instanceId: string, req: IncomingMessage, res: ServerResponse, url: URL): void {
    // The client may have left while its token was being checked: its close events have fired already.
    if (req.destroyed || res.destroyed) return;
    const stream = this.streamOf(instanceId);
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
    });
    res.write(':\n\n');
    const lastEventId = req.headers['last-event-id'] ?? url.searchParams.get('lastEventID');
    if (typeof lastEventId === 'string') {
      const index = stream.history.findIndex((event) => event.id === lastEventId);
      for (const event of index >= 0 ? stream.history.slice(index + 1) : []) res.write(format(event));
    }
    stream.clients.add(res);
    const keepAlive = setInterval(() => res.write(': keep-alive\n\n'), this.options.keepAliveMs);
    const release = () => {
      clearInterval(keepAlive);
      stream.clients.delete(res);
    };
    req.once('close', release);
    res.once('close', release);
  }

  /** The instance's stream, listening to the event bus from the first subscriber on. */
  private streamOf(instanceId: string): InstanceStream {
    const existing = this.streams.get(instanceId);
    if (existing) return existing;
    const source = this.services.events.subscribe('availabilityRequest:changed', instanceId);
    const stream: InstanceStream = {
      history: [],
      clients: new Set(),
      stop: async () => void (await source.return?.()),
    };
    this.streams.set(instanceId, stream);
    void (async () => {
      for await (const event of source as AsyncIterable<AvailabilityRequestEvent>)
        this.deliver(stream, event);
    })().catch((error: unknown) => this.services.logger.error({ err: error }, 'event stream stopped'));
    return stream;
  }

  private deliver(stream: InstanceStream, event: AvailabilityRequestEvent): void {
    this.sequence += 1;
    const sent: StreamEvent = {
      id: `${this.bootId}-${this.sequence}`,
      data: JSON.stringify(availabilityRequestDocument(event.record)),
    };
    stream.history.push(sent);
    if (stream.history.length > this.options.historySize) stream.history.shift();
    const text = format(sent);
    for (const client of stream.clients) client.write(text);
  }
}

function format(event: StreamEvent): string {
  return `id: ${event.id}\ndata: ${event.data}\n\n`;
}
