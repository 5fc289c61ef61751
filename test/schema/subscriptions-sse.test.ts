import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  contractExampleBatch,
  startTestServer,
  type TestServer,
  type TestTenant,
  waitFor,
} from '../helpers/app.js';

interface Update {
  id: string;
  status: 'PENDING' | 'IN_PROGRESS' | 'COMPLETED';
  networksProgressPercentage: number;
}

/** One server-sent event: its `event:` name and its joined `data:` lines. */
interface SseMessage {
  event: string;
  data: string;
}

const UPDATES = `subscription ($ids: [ID!]) {
  availabilityRequestUpdated(ids: $ids) { id status networksProgressPercentage }
}`;

const statusRank = { PENDING: 0, IN_PROGRESS: 1, COMPLETED: 2 } as const;
/** The demo catalogue has 7 sources at 1016XA: progress moves in sevenths, two decimals. */
const sevenths = Array.from({ length: 8 }, (_, k) => Math.round((k * 10_000) / 7) / 100);

/**
 * Reads a `text/event-stream` body as it arrives, splitting it into messages (blank-line separated,
 * `event:` and `data:` fields; comments and other fields ignored).
 */
function readEvents(body: ReadableStream<Uint8Array>) {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  const messages: SseMessage[] = [];
  let buffer = '';
  const finished = (async () => {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      buffer += decoder.decode(value, { stream: true });
      let end = buffer.indexOf('\n\n');
      while (end >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const fields = block.split('\n').filter((line) => line !== '' && !line.startsWith(':'));
        const field = (name: string) =>
          fields
            .filter((line) => line.startsWith(`${name}:`))
            .map((line) => line.slice(name.length + 1).trim());
        if (fields.length > 0)
          messages.push({ event: field('event')[0] ?? 'message', data: field('data').join('\n') });
        end = buffer.indexOf('\n\n');
      }
    }
  })().catch(() => undefined);
  return { messages, reader, finished };
}

describe('availabilityRequestUpdated over GraphQL-over-SSE (Yoga)', () => {
  let server: TestServer;
  let tenant: TestTenant;

  beforeAll(async () => {
    server = await startTestServer({ env: { SOURCE_LATENCY_SCALE: '0.05' } });
    tenant = await server.tenant();
  });
  afterAll(() => server.close());

  const listenerCount = () => Promise.resolve(server.app.services.events.target.listenerCount);

  it('when a request is created, then the SSE stream carries its progress up to COMPLETED 100, and cancelling frees the listener', async () => {
    const baseline = server.app.services.events.target.listenerCount;
    const response = await fetch(`${server.app.url}/graphql`, {
      method: 'POST',
      headers: {
        accept: 'text/event-stream',
        'content-type': 'application/json',
        'x-auth-token': tenant.api.token ?? '',
      },
      body: JSON.stringify({ query: UPDATES, variables: {} }),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const stream = readEvents(response.body as ReadableStream<Uint8Array>);
    await waitFor(listenerCount, (count) => count === baseline + 1);

    const created = await tenant.api.post('/availability-requests', [contractExampleBatch[0]]);
    const id: string = created.body.data[0].id;
    const updatesOf = () =>
      stream.messages
        .filter((message) => message.event === 'next')
        .map((message) => JSON.parse(message.data).data.availabilityRequestUpdated as Update);
    await waitFor(
      () => Promise.resolve(updatesOf()),
      (updates) => updates.some((update) => update.status === 'COMPLETED'),
    );
    await stream.reader.cancel();
    await stream.finished;

    const updates = updatesOf();
    expect(stream.messages.every((message) => message.event === 'next')).toBe(true);
    expect(updates.every((update) => update.id === id)).toBe(true);
    expect(updates[0]).toEqual({ id, status: 'PENDING', networksProgressPercentage: 0 });
    expect(updates.at(-1)).toEqual({ id, status: 'COMPLETED', networksProgressPercentage: 100 });
    expect(updates.every((update) => sevenths.includes(update.networksProgressPercentage))).toBe(true);
    const keys = updates.map(
      (update) => statusRank[update.status] * 1000 + update.networksProgressPercentage,
    );
    expect(keys).toEqual([...keys].sort((a, b) => a - b));
    await waitFor(listenerCount, (count) => count === baseline);
  });

  it('when subscribing over SSE with the id of a completed request, then its current state comes first', async () => {
    const created = await tenant.api.post('/availability-requests', [contractExampleBatch[0]]);
    const id: string = created.body.data[0].id;
    await waitFor(
      () => tenant.api.get(`/availability-requests/${id}`),
      (response) => response.body.data.status === 'completed',
    );
    const baseline = server.app.services.events.target.listenerCount;

    const response = await fetch(`${server.app.url}/graphql`, {
      method: 'POST',
      headers: {
        accept: 'text/event-stream',
        'content-type': 'application/json',
        'x-auth-token': tenant.api.token ?? '',
      },
      body: JSON.stringify({ query: UPDATES, variables: { ids: [id] } }),
    });
    const stream = readEvents(response.body as ReadableStream<Uint8Array>);
    await waitFor(
      () => Promise.resolve(stream.messages),
      (messages) => messages.length > 0,
    );
    await stream.reader.cancel();
    await stream.finished;

    expect(stream.messages[0]?.event).toBe('next');
    expect(JSON.parse(stream.messages[0]?.data ?? '{}')).toEqual({
      data: { availabilityRequestUpdated: { id, status: 'COMPLETED', networksProgressPercentage: 100 } },
    });
    await waitFor(listenerCount, (count) => count === baseline);
  });

  it('when the SSE subscription has no token, then it answers 401 with UNAUTHENTICATED as JSON, not a stream, and holds no listener', async () => {
    const baseline = server.app.services.events.target.listenerCount;

    const response = await fetch(`${server.app.url}/graphql`, {
      method: 'POST',
      headers: { accept: 'text/event-stream', 'content-type': 'application/json' },
      body: JSON.stringify({ query: UPDATES, variables: {} }),
    });

    expect(response.status).toBe(401);
    expect(response.headers.get('content-type')).toBe('application/graphql-response+json; charset=utf-8');
    expect(await response.json()).toEqual({
      errors: [
        {
          message: 'Send a valid auth token in the X-Auth-Token header.',
          locations: [{ line: 2, column: 3 }],
          path: ['availabilityRequestUpdated'],
          extensions: { code: 'UNAUTHENTICATED' },
        },
      ],
    });
    expect(server.app.services.events.target.listenerCount).toBe(baseline);
  });
});
