import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SONATA_API_PATHS, type SonataApi } from '../../helpers/sonata-openapi.js';

/**
 * What the test's seller received and answered: the API (by base path), the method, the path below the API's
 * base, the query, the bodies and the status.
 */
export interface OrderExchange {
  api: SonataApi;
  method: string;
  path: string;
  query: Record<string, string>;
  authorization: string | undefined;
  contentType: string | undefined;
  requestBody: unknown;
  status: number;
  responseBody: unknown;
}

/** What the test's seller answers to one call: a status and JSON body, or nothing at all (a stall). */
export type OrderAnswer = { status: number; body?: unknown; headers?: Record<string, string> } | 'stall';

/** A call as the seller's `answer` sees it. */
export interface OrderCall {
  api: SonataApi;
  method: string;
  path: string;
  query: Record<string, string>;
  body: unknown;
}

/**
 * A Sonata seller of the test's own on 127.0.0.1 for the ordering client: a token endpoint at `/token`, and
 * every other call answered by `answer` (default 404) and recorded, so the test checks both sides against
 * the MEF documents. Calls below `<url>/seller` only.
 */
export interface OrderSeller {
  url: string;
  answer: (call: OrderCall) => OrderAnswer;
  exchanges: OrderExchange[];
  stop(): Promise<void>;
}

export const sellerToken = 'order-seller-token';

function read(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/** Starts an {@link OrderSeller} on a free port. */
export async function startOrderSeller(): Promise<OrderSeller> {
  const seller: OrderSeller = {
    url: '',
    answer: () => ({ status: 404, body: { code: 'notFound', reason: 'not set by the test' } }),
    exchanges: [],
    stop: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const server: Server = createServer((req, res: ServerResponse) => {
    void read(req).then((text) => {
      const url = new URL(req.url ?? '/', seller.url);
      if (url.pathname === '/token') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ access_token: sellerToken, token_type: 'Bearer', expires_in: 3600 }));
        return;
      }
      const entry = Object.entries(SONATA_API_PATHS).find(([, base]) =>
        url.pathname.startsWith(`/seller${base}`),
      );
      if (!entry) {
        res.writeHead(404).end();
        return;
      }
      const [api, base] = entry as [SonataApi, string];
      const call: OrderCall = {
        api,
        method: req.method ?? 'GET',
        path: url.pathname.slice(`/seller${base}`.length),
        query: Object.fromEntries(url.searchParams),
        body: text === '' ? undefined : (JSON.parse(text) as unknown),
      };
      const answer = seller.answer(call);
      if (answer === 'stall') return;
      seller.exchanges.push({
        ...call,
        authorization: req.headers.authorization,
        contentType: req.headers['content-type'],
        requestBody: call.body,
        status: answer.status,
        responseBody: answer.body,
      });
      if (answer.body === undefined) {
        res.writeHead(answer.status, answer.headers).end();
        return;
      }
      res.writeHead(answer.status, { 'content-type': 'application/json;charset=utf-8', ...answer.headers });
      res.end(JSON.stringify(answer.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  seller.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return seller;
}
