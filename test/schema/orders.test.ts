import { type Client, createClient } from 'graphql-ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { type Json, startTestServer, type TestServer, type TestTenant, waitFor } from '../helpers/app.js';
import { manualQuote, signIn } from '../rest/orders-fixtures.js';

/*
 * Orders over GraphQL: placing, reading through every path, moving manual lines, and `orderUpdated` live.
 * The demo's mandatory products need no delivery (issue 49): their lines are NONE, COMPLETED when placed.
 */

const LINE = `id quoteLineId name source { id name type } fulfilment status supplierStatus supplierOrderId note
  completionDate statusChangedAt statusChangedByUserId milestones { name } charges { id } error { code message }
  notice { code message }`;
const ORDER = `id quoteId status customer { id name } lines { ${LINE} } requestedCompletionDate`;
const PLACE = `mutation ($input: PlaceOrderInput!) { placeOrder(input: $input) { order { ${ORDER} } } }`;
const MOVE = `mutation ($input: UpdateManualOrderLineInput!) {
  updateManualOrderLine(input: $input) { order { id status lines { id status note statusChangedByUserId } } }
}`;
const READ = `query ($id: ID!, $quote: ID!, $customer: ID!, $line: ID!) {
  order(id: $id) { id status }
  node(id: $id) { __typename id ... on Order { status } }
  line: node(id: $line) { __typename id ... on OrderLine { quoteLineId status } }
  quote(id: $quote) { orders { id } }
  customer: node(id: $customer) { ... on Customer { orders(first: 5) { totalCount edges { node { id } } } } }
  orders(first: 10, status: PENDING) { totalCount edges { node { id status } } }
}`;
const UPDATED = 'subscription ($ids: [ID!]) { orderUpdated(ids: $ids) { id status lines { status } } }';

/** A graphql-ws subscriber of `orderUpdated`: what it received, in order. */
function subscribe(url: string, token: string, ids: string[] | null): { seen: Json[]; client: Client } {
  const seen: Json[] = [];
  const client = createClient({
    url: `${url.replace(/^http/, 'ws')}/graphql`,
    webSocketImpl: WebSocket,
    connectionParams: { authToken: token },
    retryAttempts: 0,
  });
  client.subscribe<{ orderUpdated: Json }>(
    { query: UPDATED, variables: { ids } },
    {
      next: (result) => {
        if (result.data) seen.push(result.data.orderUpdated);
        else seen.push({ errors: result.errors });
      },
      error: (error) => seen.push({ error: String(error) }),
      complete: () => {},
    },
  );
  return { seen, client };
}

describe('orders over GraphQL', () => {
  let server: TestServer;
  let tenant: TestTenant;

  beforeAll(async () => {
    server = await startTestServer();
    tenant = await server.tenant({ code: 'OGQ', roles: ['connectivity_check', 'ordering'] });
  });
  afterAll(() => server.close());

  it('when an order is placed and its lines moved, then every path reads it and a subscriber sees each state once, in order', async () => {
    const quote = await manualQuote(tenant);
    const token = tenant.api.token ?? '';
    const everything = subscribe(server.app.url, token, null);
    await waitFor(
      async () => server.app.services.events.target.listenerCount,
      (count) => count > 0,
    );

    server.clock.freeze();
    const placedAt = server.clock.now();
    const placed = await tenant.api.graphql(PLACE, {
      input: {
        quoteId: quote.id,
        requestedCompletionDate: '2031-03-01T09:00:00.000Z',
        contact: { name: 'ACME NOC', emailAddress: 'noc@acme.example' },
      },
    });
    server.clock.thaw();
    expect(placed.errors).toBeUndefined();
    const order = placed.data.placeOrder.order;
    // The demo's mandatory products need no delivery.
    const none = (line: Json) => line.kind === 'mandatory_product';
    expect(order).toEqual({
      id: expect.stringMatching(/^ord_/),
      quoteId: quote.id,
      status: 'PENDING',
      customer: { id: quote.customer.id, name: 'ACME Telecom' },
      lines: quote.products.map((line: Json) => ({
        id: expect.stringMatching(/^orl_/),
        quoteLineId: line.id,
        name: line.name,
        source: line.source && { id: line.source.id, name: line.source.name, type: line.source.type },
        fulfilment: none(line) ? 'NONE' : 'MANUAL',
        status: none(line) ? 'COMPLETED' : 'PENDING',
        supplierStatus: null,
        supplierOrderId: null,
        note: null,
        completionDate: none(line) ? placedAt.toISOString() : null,
        statusChangedAt: none(line) ? placedAt.toISOString() : null,
        statusChangedByUserId: null,
        milestones: [],
        charges: [],
        error: null,
        notice: null,
      })),
      requestedCompletionDate: '2031-03-01T09:00:00.000Z',
    });
    expect(
      order.lines.map((line: Json) => [line.fulfilment, line.status, line.source?.type ?? null]),
    ).toEqual([
      ['MANUAL', 'PENDING', 'catalog'],
      ['MANUAL', 'PENDING', null],
      ['NONE', 'COMPLETED', null],
      ['NONE', 'COMPLETED', null],
    ]);
    expect(order.lines[0].source).toEqual({
      id: expect.stringMatching(/^src_[0-9a-z]{26}$/),
      name: 'Colt',
      type: 'catalog',
    });

    const one = subscribe(server.app.url, token, [order.id]);
    await waitFor(
      async () => one.seen.length,
      (count) => count === 1,
    );
    expect(one.seen[0]).toEqual({
      id: order.id,
      status: 'PENDING',
      lines: [{ status: 'PENDING' }, { status: 'PENDING' }, { status: 'COMPLETED' }, { status: 'COMPLETED' }],
    });

    const read = await tenant.api.graphql(READ, {
      id: order.id,
      quote: quote.id,
      customer: quote.customer.id,
      line: order.lines[1].id,
    });
    expect(read.errors).toBeUndefined();
    expect(read.data).toEqual({
      order: { id: order.id, status: 'PENDING' },
      node: { __typename: 'Order', id: order.id, status: 'PENDING' },
      line: {
        __typename: 'OrderLine',
        id: order.lines[1].id,
        quoteLineId: quote.products[1].id,
        status: 'PENDING',
      },
      quote: { orders: [{ id: order.id }] },
      customer: { orders: { totalCount: 1, edges: [{ node: { id: order.id } }] } },
      orders: { totalCount: 1, edges: [{ node: { id: order.id, status: 'PENDING' } }] },
    });

    const { userId } = await signIn(server, tenant);
    const statuses: string[] = [];
    const manual = order.lines.filter((line: Json) => line.fulfilment === 'MANUAL');
    expect(manual.map((line: Json) => line.id)).toEqual([order.lines[0].id, order.lines[1].id]);
    for (const [index, line] of manual.entries()) {
      const moved = await tenant.api.graphql(MOVE, {
        input: { orderId: order.id, lineId: line.id, status: 'COMPLETED', note: `done ${index + 1}` },
      });
      expect(moved.errors).toBeUndefined();
      statuses.push(moved.data.updateManualOrderLine.order.status);
      // Who moved each manual line so far; the lines not moved yet, and the NONE ones, show no one.
      expect(moved.data.updateManualOrderLine.order.lines).toEqual(
        order.lines.map((each: Json, at: number) => {
          if (each.fulfilment === 'NONE') {
            return { id: each.id, status: 'COMPLETED', note: null, statusChangedByUserId: null };
          }
          return at <= index
            ? { id: each.id, status: 'COMPLETED', note: `done ${at + 1}`, statusChangedByUserId: userId }
            : { id: each.id, status: 'PENDING', note: null, statusChangedByUserId: null };
        }),
      );
    }
    expect(userId).toMatch(/^usr_/);
    expect(statuses).toEqual(['IN_PROGRESS', 'COMPLETED']);

    const expected = ['PENDING', ...statuses];
    await waitFor(
      async () => everything.seen.length,
      (count) => count >= expected.length,
    );
    expect(everything.seen.map((seen) => seen.status)).toEqual(expected);
    expect(everything.seen.at(-1)?.lines).toEqual(order.lines.map(() => ({ status: 'COMPLETED' })));
    await waitFor(
      async () => one.seen.length,
      (count) => count >= expected.length,
    );
    expect(one.seen.map((seen) => seen.status)).toEqual(expected);

    const endedMove = await tenant.api.graphql(MOVE, {
      input: { orderId: order.id, lineId: order.lines[0].id, status: 'FAILED' },
    });
    expect(endedMove.errors?.[0]?.extensions?.code).toBe('CONFLICT');
    const noneMove = await tenant.api.graphql(MOVE, {
      input: { orderId: order.id, lineId: order.lines[2].id, status: 'FAILED' },
    });
    expect(noneMove.errors?.[0]).toMatchObject({
      message: `Line ${order.lines[2].id} has ended; it is not moved again.`,
      extensions: { code: 'CONFLICT' },
    });
    await everything.client.dispose();
    await one.client.dispose();
  });

  it('when an order is followed over GraphQL-over-SSE, then its current state comes first and each move follows', async () => {
    const quote = await manualQuote(tenant, 'Sse B.V.');
    const order = (await tenant.api.graphql(PLACE, { input: { quoteId: quote.id } })).data.placeOrder.order;
    const response = await fetch(`${server.app.url}/graphql`, {
      method: 'POST',
      headers: {
        accept: 'text/event-stream',
        'content-type': 'application/json',
        'x-auth-token': tenant.api.token ?? '',
      },
      body: JSON.stringify({ query: UPDATED, variables: { ids: [order.id] } }),
    });
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    let text = '';
    const statuses = () =>
      [...text.matchAll(/^data: (.+)$/gm)].map(
        (match) => JSON.parse(match[1] ?? '{}').data?.orderUpdated?.status,
      );
    const readUntil = async (count: number) => {
      while (statuses().length < count) text += decoder.decode((await reader.read()).value, { stream: true });
    };
    await readUntil(1);
    const [first] = order.lines;
    await tenant.api.graphql(MOVE, { input: { orderId: order.id, lineId: first.id, status: 'IN_PROGRESS' } });
    await readUntil(2);
    await reader.cancel();
    expect(statuses()).toEqual(['PENDING', 'IN_PROGRESS']);
  });

  it('when an order is cancelled over GraphQL, then its manual lines are cancelled at once and a second ask conflicts', async () => {
    const quote = await manualQuote(tenant, 'Cancel B.V.');
    const order = (await tenant.api.graphql(PLACE, { input: { quoteId: quote.id } })).data.placeOrder.order;
    const CANCEL = `mutation ($input: CancelOrderInput!) { cancelOrder(input: $input) { order {
      id status cancellation { reason } cancellationCharges { sourceId }
      lines { status cancellation { state message } priceChange { newMrc } }
    } } }`;
    const cancelled = await tenant.api.graphql(CANCEL, {
      input: { orderId: order.id, reason: 'Site closed.' },
    });
    expect(cancelled.data.cancelOrder.order).toEqual({
      id: order.id,
      status: 'CANCELLED',
      cancellation: { reason: 'Site closed.' },
      cancellationCharges: [],
      // The manual lines are cancelled; the NONE ones had ended, COMPLETED when the order was placed.
      lines: order.lines.map((line: Json) =>
        line.fulfilment === 'NONE'
          ? { status: 'COMPLETED', cancellation: null, priceChange: null }
          : { status: 'CANCELLED', cancellation: { state: 'DONE', message: null }, priceChange: null },
      ),
    });
    expect(order.lines.map((line: Json) => line.fulfilment)).toEqual(['MANUAL', 'MANUAL', 'NONE', 'NONE']);
    const again = await tenant.api.graphql(CANCEL, { input: { orderId: order.id, reason: 'Again.' } });
    expect(again.errors?.[0]?.extensions?.code).toBe('CONFLICT');
    const blank = await tenant.api.graphql(CANCEL, { input: { orderId: order.id, reason: ' ' } });
    expect(blank.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
  });

  it('when a connectivity_check-only caller places an order, then it is forbidden and it may still read', async () => {
    const checker = await server.tenant({ code: 'OGR', roles: ['connectivity_check'] });
    const quote = await manualQuote(checker);
    const refused = await checker.api.graphql(PLACE, { input: { quoteId: quote.id } });
    expect(refused.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    expect(refused.data).toBeNull();
    const read = await checker.api.graphql('{ orders(first: 1) { totalCount } }');
    expect(read.data).toEqual({ orders: { totalCount: 0 } });
  });
});
