import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type CatalogFile, demoCatalogPath, readCatalogFile } from '../sources/catalog-file.js';
import type { SupplierRequest } from '../sources/supplier-contract.js';
import { simulatedOffers } from './offers.js';
import { createOrderDesk, type OrderExchange } from './order-desk.js';
import type { SimulatedOrder } from './orders.js';

/** How simulated suppliers behave unless a request's query string says otherwise. */
export interface SimulatorBehaviour {
  /** Answer time range in milliseconds (uniform). */
  latencyMinMs: number;
  latencyMaxMs: number;
  /** Share of calls answered 503 (0–1). */
  failureRate: number;
  /** Share of calls never answered (0–1). */
  hangRate: number;
  /** Share of calls answered with malformed JSON (0–1). */
  malformedRate: number;
  /** Time between two states of an order's items (ms), unless a call's `step_ms` says otherwise. */
  stepMs: number;
}

/** Call counts per supplier key, with the most calls it ever had in flight at once. */
export interface SupplierStats {
  calls: number;
  inFlight: number;
  maxInFlight: number;
}

/** A running simulator. */
export interface SupplierSimulator {
  url: string;
  port: number;
  stats: Map<string, SupplierStats>;
  /** The orders a supplier holds, oldest first. */
  orders(sourceKey: string): SimulatedOrder[];
  /** Every call of the ordering API so far, in order (availability calls are counted in `stats` only). */
  readonly exchanges: OrderExchange[];
  /** The endpoint of one simulated supplier, with an optional behaviour override (`?mode=503`, …). */
  endpoint(sourceKey: string, query?: Record<string, string>): string;
  stop(): Promise<void>;
}

const quiet: SimulatorBehaviour = {
  latencyMinMs: 0,
  latencyMaxMs: 0,
  failureRate: 0,
  hangRate: 0,
  malformedRate: 0,
  stepMs: 100,
};

/**
 * Starts a supplier simulator: a real HTTP server speaking the supplier contract
 * (docs/supplier-contract.md) for every source of a catalogue file (default: the NL demo catalogue), at
 * `POST /suppliers/<source-key>/availability`. Per call, the query string can force a behaviour:
 * `mode=hang|503|400|429|malformed|redirect|huge|invalid`, `script=503,503,200` (one step per call, counted
 * per URL), `retry_after=<seconds>`, `latency=<ms>`, `offer_ids=none` (offers without an `id`). `GET /stats`
 * answers the call statistics. Each supplier takes orders below `/suppliers/<source-key>/orders`, with the
 * knobs of `createOrderDesk` (and `latency`).
 */
export async function startSupplierSimulator(
  options: {
    port?: number;
    host?: string;
    behaviour?: Partial<SimulatorBehaviour>;
    catalog?: CatalogFile;
    random?: () => number;
    /** The clock orders move by (ms since the epoch). */
    now?: () => number;
  } = {},
): Promise<SupplierSimulator> {
  const behaviour = { ...quiet, ...options.behaviour };
  const catalog = options.catalog ?? readCatalogFile(demoCatalogPath);
  const random = options.random ?? Math.random;
  const stats = new Map<string, SupplierStats>();
  const scripts = new Map<string, number>();
  const hanging = new Set<ServerResponse>();
  const desk = createOrderDesk(catalog, behaviour.stepMs, options.now ?? Date.now);

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://simulator');
    if (req.method === 'GET' && url.pathname === '/stats') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(Object.fromEntries(stats)));
      return;
    }
    const ordering = /^\/suppliers\/([a-z0-9-]+)(\/orders(?:\/.*)?)$/.exec(url.pathname);
    if (ordering?.[1] && ordering[2]) {
      await order(req, res, url, ordering[1], ordering[2]);
      return;
    }
    const match = /^\/suppliers\/([a-z0-9-]+)\/availability$/.exec(url.pathname);
    if (req.method !== 'POST' || !match?.[1]) {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: 'not found' }));
      return;
    }
    const key = match[1];
    const entry = stats.get(key) ?? { calls: 0, inFlight: 0, maxInFlight: 0 };
    stats.set(key, entry);
    entry.calls += 1;
    entry.inFlight += 1;
    entry.maxInFlight = Math.max(entry.maxInFlight, entry.inFlight);
    res.once('close', () => {
      entry.inFlight -= 1;
      hanging.delete(res);
    });
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const mode = scriptedMode(url, scripts) ?? url.searchParams.get('mode') ?? drawMode(behaviour, random);
    const latency = Number(
      url.searchParams.get('latency') ??
        behaviour.latencyMinMs + random() * (behaviour.latencyMaxMs - behaviour.latencyMinMs),
    );
    if (mode === 'hang') {
      hanging.add(res);
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, latency));
    respond(res, mode, url, () =>
      simulatedOffers(catalog, key, JSON.parse(Buffer.concat(chunks).toString('utf8')) as SupplierRequest, {
        ids: url.searchParams.get('offer_ids') !== 'none',
      }),
    );
  };

  const order = async (
    req: IncomingMessage,
    res: ServerResponse,
    url: URL,
    sourceKey: string,
    path: string,
  ) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    await new Promise((resolve) => setTimeout(resolve, Number(url.searchParams.get('latency') ?? 0) || 0));
    const answer = desk.handle({
      method: req.method ?? 'GET',
      sourceKey,
      path,
      url,
      body: Buffer.concat(chunks).toString('utf8'),
    }) ?? { status: 404, body: { error: 'not found' }, delayMs: 0 };
    if (answer.delayMs > 0) {
      // A late answer: the order is kept already; stop() cuts the wait short.
      hanging.add(res);
      res.once('close', () => hanging.delete(res));
      await new Promise((resolve) => setTimeout(resolve, answer.delayMs).unref());
      if (res.destroyed) return;
    }
    res.writeHead(answer.status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(answer.body));
  };

  const server: Server = createServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) res.writeHead(400, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: 'bad request' }));
    });
  });
  await new Promise<void>((resolve) =>
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', resolve),
  );
  const { port } = server.address() as AddressInfo;
  const url = `http://${options.host ?? '127.0.0.1'}:${port}`;
  return {
    url,
    port,
    stats,
    orders: desk.orders,
    exchanges: desk.exchanges,
    endpoint: (sourceKey, query = {}) => {
      const search = new URLSearchParams(query).toString();
      return `${url}/suppliers/${sourceKey}/availability${search ? `?${search}` : ''}`;
    },
    stop: async () => {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function scriptedMode(url: URL, scripts: Map<string, number>): string | null {
  const script = url.searchParams.get('script');
  if (!script) return null;
  const key = `${url.pathname}?${url.search}`;
  const step = scripts.get(key) ?? 0;
  scripts.set(key, step + 1);
  const steps = script.split(',');
  return steps[Math.min(step, steps.length - 1)] ?? null;
}

function drawMode(behaviour: SimulatorBehaviour, random: () => number): string {
  const draw = random();
  if (draw < behaviour.hangRate) return 'hang';
  if (draw < behaviour.hangRate + behaviour.failureRate) return '503';
  if (draw < behaviour.hangRate + behaviour.failureRate + behaviour.malformedRate) return 'malformed';
  return '200';
}

function respond(res: ServerResponse, mode: string, url: URL, offers: () => unknown[]): void {
  const json = (status: number, body: unknown, headers: Record<string, string> = {}) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify(body));
  };
  switch (mode) {
    case '503':
    case '500': {
      const retryAfter = url.searchParams.get('retry_after');
      json(
        Number(mode),
        { error: 'temporarily unavailable' },
        retryAfter ? { 'retry-after': retryAfter } : {},
      );
      return;
    }
    case '400':
    case '401':
    case '429':
      json(Number(mode), { error: 'refused' });
      return;
    case 'redirect':
      res.writeHead(302, { location: '/elsewhere' });
      res.end();
      return;
    case 'malformed':
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"offers": [{"network": "KPN", ');
      return;
    case 'invalid':
      json(200, { offers: [{ network: 'KPN', bandwidth: 'fast' }] });
      return;
    case 'huge':
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(`{"offers": [], "padding": "${'x'.repeat(3 * 1024 * 1024)}"}`);
      return;
    default:
      json(200, { offers: offers() });
  }
}
