import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { SourcePolicies } from '../../src/gathering/sources/policies.js';
import type { SupplierOrderRequest } from '../../src/gathering/sources/supplier-contract.js';
import { SourceError } from '../../src/gathering/sources/types.js';
import {
  HttpSupplierCalls,
  HttpSupplierOrdering,
  ordersBaseUrl,
} from '../../src/ordering/http-supplier/index.js';
import { settings } from '../gathering/sources/http-fixtures.js';
import { sourceRow } from '../gathering/sources/mef-sonata/fixtures.js';

/*
 * The http supplier client against a supplier of the test's own: where its calls go (the endpoint URL's
 * base, its query kept, the bearer credential), how a placement whose answer failed is looked up, and how
 * each kind of failure reads.
 */

interface Received {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

const order: SupplierOrderRequest = {
  external_id: 'sor_1',
  customer_name: 'Acme Logistics B.V.',
  requested_completion_date: '2025-02-01T00:00:00.000Z',
  contact: null,
  items: [{ id: 'orl_1', offer_id: 'kpn-1', contract_term_months: 36 }],
};

const held = {
  id: 'so-9',
  external_id: 'sor_1',
  status: 'accepted',
  items: [{ id: 'orl_1', offer_id: 'kpn-1', status: 'accepted' }],
  cancellation: null,
};

describe('the http supplier client', () => {
  let supplier: Server;
  let supplierUrl: string;
  let received: Received[];
  let answer: (call: Received) => { status: number; body: string; headers?: Record<string, string> };

  beforeAll(async () => {
    supplier = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const call = {
          method: req.method ?? '',
          path: req.url ?? '/',
          headers: req.headers,
          body: Buffer.concat(chunks).toString('utf8'),
        };
        received.push(call);
        const { status, body, headers } = answer(call);
        res.writeHead(status, { 'content-type': 'application/json', ...headers });
        res.end(body);
      });
    });
    await new Promise<void>((resolve) => supplier.listen(0, '127.0.0.1', resolve));
    supplierUrl = `http://127.0.0.1:${(supplier.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    supplier.closeAllConnections();
    await new Promise<void>((resolve) => supplier.close(() => resolve()));
  });
  beforeEach(() => {
    received = [];
  });

  const client = () =>
    new HttpSupplierOrdering(new HttpSupplierCalls(new SourcePolicies(settings), () => new Date()));
  const scope = (fields: Parameters<typeof sourceRow>[0] = {}) => ({
    source: sourceRow({ type: 'http', endpointUrl: `${supplierUrl}/v1/availability?tenant=acme`, ...fields }),
    signal: new AbortController().signal,
  });
  const failure = async (promise: Promise<unknown>) => {
    const error = await promise.then(
      () => null,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(SourceError);
    const { code, message, retryable } = error as SourceError;
    return { code, message, retryable };
  };

  it('when the base is taken from an endpoint URL, then its last path segment goes and its query stays', () => {
    expect(ordersBaseUrl('https://api.supplier.example/v1/availability?key=k').href).toBe(
      'https://api.supplier.example/v1?key=k',
    );
    expect(ordersBaseUrl('https://api.supplier.example/availability/').href).toBe(
      'https://api.supplier.example/',
    );
  });

  it('when an order is placed, then it is posted below the base with the query and the bearer credential', async () => {
    answer = () => ({ status: 201, body: JSON.stringify(held) });

    const placed = await client().place(scope({ credentials: 'secret-1' }), order);

    expect(placed).toEqual(held);
    expect(
      received.map((call) => [call.method, call.path, call.headers.authorization, JSON.parse(call.body)]),
    ).toEqual([['POST', '/v1/orders?tenant=acme', 'Bearer secret-1', order]]);
  });

  it('when the placement is answered 503, then the order is looked up by its external_id and returned when there', async () => {
    answer = (call) =>
      call.method === 'POST'
        ? { status: 503, body: '{}' }
        : { status: 200, body: JSON.stringify({ orders: [{ ...held, external_id: 'sor_other' }, held] }) };

    const placed = await client().place(scope(), order);

    expect(placed).toEqual(held);
    expect(received.map((call) => `${call.method} ${call.path}`)).toEqual([
      'POST /v1/orders?tenant=acme',
      'GET /v1/orders?tenant=acme&external_id=sor_1',
    ]);
  });

  it('when the placement is answered 503 and the order is not there, then the 503 is the failure, retryable', async () => {
    answer = (call) =>
      call.method === 'POST' ? { status: 503, body: '{}' } : { status: 200, body: '{"orders":[]}' };

    expect(await failure(client().place(scope(), order))).toEqual({
      code: 'UPSTREAM_5XX',
      message: 'The supplier answered 503 to the order placement.',
      retryable: true,
    });
  });

  it.each([
    {
      what: 'a refusal with its words',
      status: 422,
      body: '{"error":"Offer kpn-1 is sold out."}',
      expected: {
        code: 'UPSTREAM_4XX',
        message: 'The supplier answered 422 to the order so-9 read: Offer kpn-1 is sold out.',
        retryable: false,
      },
    },
    {
      what: 'a refusal without words',
      status: 404,
      body: 'not here',
      expected: {
        code: 'UPSTREAM_4XX',
        message: 'The supplier answered 404 to the order so-9 read.',
        retryable: false,
      },
    },
    {
      what: 'a 429',
      status: 429,
      body: '{}',
      expected: {
        code: 'THROTTLED',
        message: 'The supplier answered 429 to the order so-9 read.',
        retryable: true,
      },
    },
    {
      what: 'malformed JSON',
      status: 200,
      body: '{"id": ',
      expected: {
        code: 'MALFORMED_RESPONSE',
        message: 'The supplier answered the order so-9 read with malformed JSON.',
        retryable: false,
      },
    },
    {
      what: 'an order without items',
      status: 200,
      body: JSON.stringify({ ...held, items: [] }),
      expected: {
        code: 'INVALID_RESPONSE',
        message:
          'The supplier’s answer to the order so-9 read breaks the supplier contract at /items: Too small: expected array to have >=1 items',
        retryable: false,
      },
    },
  ])('when a read is answered with $what, then it fails so', async ({ status, body, expected }) => {
    answer = () => ({ status, body });

    expect(await failure(client().read(scope(), 'so-9'))).toEqual(expected);
  });

  it('when an order is cancelled, then the reason is posted and the order comes back with its cancellation', async () => {
    const cancelled = { ...held, cancellation: { status: 'requested' } };
    answer = () => ({ status: 202, body: JSON.stringify(cancelled) });

    const answered = await client().cancel(scope(), 'so-9', 'The customer moved.');

    expect(answered).toEqual(cancelled);
    expect(received.map((call) => [call.method, call.path, JSON.parse(call.body)])).toEqual([
      ['POST', '/v1/orders/so-9/cancel?tenant=acme', { reason: 'The customer moved.' }],
    ]);
  });
});
