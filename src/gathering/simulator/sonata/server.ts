import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type CatalogFile, demoCatalogPath, readCatalogFile } from '../../sources/catalog-file.js';
import { answerApiCall, type SellerState } from './api.js';
import { error5xx, error400, error401, error404, error422, error429, type SellerAnswer } from './errors.js';
import { Hub } from './hub.js';
import { answerInventoryCall } from './inventory-api.js';
import { callKnobs, inventoryKnob, orderKnobs, quietBehaviour, type SonataSellerBehaviour } from './knobs.js';
import { type SellerContext, type SonataApi, type SonataSellerMode, sellerModes } from './lifecycle.js';
import { type ClientCredentials, TokenIssuer } from './oauth.js';
import { DEFAULT_OFFERING_PREFIX, sonataProductOfferings } from './offerings.js';
import { answerOrderCall } from './order-api.js';

export { CANCEL_CONTACT_ROLE, type CancelOutcome, cancelOutcomes } from './cancel.js';
export type { SonataSellerBehaviour } from './knobs.js';
export type { SonataApi, SonataSellerMode } from './lifecycle.js';
export { type SonataProductOffering, sonataProductOfferings } from './offerings.js';
export { type OrderOutcome, orderOutcomes, SITE_SURVEY_MILESTONE } from './order.js';
export { ITEM_CONTACT_ROLES, ORDER_CONTACT_ROLE } from './order-rules.js';

/** One API call a seller received and answered (token calls excluded). */
export interface SonataExchange {
  method: string;
  /**
   * The full URL path, e.g. `/sonata/colt/instant/mefApi/sonata/quoteManagement/v8/quote` (the API's base
   * path tells the APIs apart).
   */
  path: string;
  query: Record<string, string>;
  /** The parsed JSON body; the raw text when it was not JSON; undefined when empty. */
  requestBody: unknown;
  status: number;
  /** The parsed JSON answer; the raw text of a malformed one; undefined when empty. */
  responseBody: unknown;
}

/** A running simulator of Sonata sellers, one per catalogue source key and mode. */
export interface SonataSeller {
  url: string;
  port: number;
  /**
   * Base URL of one seller: the adapter appends `/mefApi/sonata/productOfferingQualification/v7/…`,
   * `/mefApi/sonata/quoteManagement/v8/…`, `/mefApi/sonata/productOrderingManagement/v10/…` or
   * `/mefApi/sonata/productInventory/v7/…` (the documents' `servers` paths) to its path and keeps its query,
   * whose knobs then apply to every call: `mode=hang|malformed|401|404|422|429|500|503`, `script=503,200`,
   * `retry_after=<s>`, `latency=<ms>`, `outcome=unableToProvide` (deferred POQs end `done.unableToProvide`,
   * Quotes `unableToProvide`), `price=none` (priced quote items carry no `quoteItemPrice`);
   * `order=hold-charge` (each order item is held on a blocking construction Charge after its site survey:
   * accepted, the item completes; declined or left past its `responseDueDate`, the item `failed`),
   * `hold_items=<n>` (with `order=hold-charge`: only the first n items are held, the others complete),
   * `charge_list=404|503` (`GET /charge`, the list, answers that status — a seller breaking MEF 123 CR3 —
   * while `GET /charge/{id}`, `PATCH /charge/{id}` and the hub work), `item_charges=accepted` (an item's
   * `charge` lists only its completed Charges with accepted items, as MEF 123 says; default all of them),
   * `inventory=404|503` (`GET
   * /product/{id}` answers that status: an inventory that lags its orders, or is down),
   * `order=reject` (the order `rejected` after its acknowledgement, items `rejected` with a
   * `terminationError`), `order=fail-item` (the first item `failed`, the others completed: the order
   * `partial`, or `failed` when it had one item), `charge_due_ms=<ms>` (a Charge's `responseDueDate` after its
   * creation; default three steps), `cancel=accept|decline|charge|reject` (how a Cancel Product Order is
   * answered: the order `cancelled`; `done.declined` with a reason, the order going on; a blocking
   * cancellation Charge first; `rejected` at once — cancel.ts) and `cancel_step_ms=<ms>` (between a
   * cancellation's steps; default `stepMs`). Orders are never instant: every mode acknowledges them and moves
   * them on step by step (order.ts).
   */
  baseUrl(sourceKey: string, mode?: SonataSellerMode, query?: Record<string, string>): string;
  /** The OAuth2 client-credentials token endpoint of that seller (its query may set `expires_in=<s>`). */
  tokenUrl(sourceKey: string): string;
  credentials: ClientCredentials;
  /** Every API call received and answered, in order (token calls excluded), for tests to validate; empty
   * when started with `record: false`. */
  exchanges: SonataExchange[];
  /** Notifications the seller sent to listeners: `{ url, body, status }` in order of delivery; empty when
   * started with `record: false`. */
  notifications: { url: string; body: unknown; status: number }[];
  /** Resolves when every queued notification has been delivered (or failed). */
  settled(): Promise<void>;
  stop(): Promise<void>;
}

/** Largest request body read (1 MiB). */
const MAX_BODY_BYTES = 1024 * 1024;

const API_PATHS: Record<SonataApi, string> = {
  poq: '/mefApi/sonata/productOfferingQualification/v7',
  quote: '/mefApi/sonata/quoteManagement/v8',
  order: '/mefApi/sonata/productOrderingManagement/v10',
  inventory: '/mefApi/sonata/productInventory/v7',
};
const ROUTE =
  /^\/sonata\/([a-z0-9-]+)\/([a-z-]+)(\/mefApi\/sonata\/(?:productOfferingQualification\/v7|quoteManagement\/v8|productOrderingManagement\/v10|productInventory\/v7))(\/.*)?$/;
const TOKEN_ROUTE = /^\/sonata\/([a-z0-9-]+)\/oauth2\/token$/;

async function readBody(req: IncomingMessage): Promise<string | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).byteLength;
    if (size > MAX_BODY_BYTES) return null;
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function send(res: ServerResponse, answer: SellerAnswer): void {
  const headers = { ...answer.headers };
  if (answer.body === undefined) {
    res.writeHead(answer.status, headers);
    res.end();
    return;
  }
  res.writeHead(answer.status, { 'content-type': 'application/json;charset=utf-8', ...headers });
  res.end(JSON.stringify(answer.body));
}

/**
 * Starts the simulated Sonata sellers (MEF LSO Sonata POQ 7.0.1, Quote 8.0.1, Product Order Management 10.0.0
 * and Product Inventory 7.0.2, as a seller): a real HTTP
 * server with one seller per source key of a catalogue (default: the NL demo catalogue) and mode, at
 * `/sonata/<source-key>/<mode>` + the documents' base paths. Each qualifies and prices the MEF 139 Basic
 * Internet Access offerings its catalogue holds at the requested place (`sonataProductOfferings`); the
 * mapping is docs/mef-sonata-mapping.md. API calls need a bearer token from `POST /sonata/<key>/oauth2/token`
 * (RFC 6749 §4.4), else `401` `Error401`. Bodies are checked with zod (`400` `Error400`) and business rules
 * (`422`, a list of `Error422`).
 *
 * @param options.behaviour latency, failure rates and step interval (default: none, 100 ms steps).
 * @param options.credentials the accepted client id and secret (default `connectivity-gateway` / `simulator-secret`).
 * @param options.offeringPrefix product offering id prefix (default `basic-internet-access`).
 * @param options.record whether to keep every exchange and notification for the tests to read (default
 *   true); a long-running simulator (`npm run supplier-sim`, the bench) passes false, keeping nothing.
 */
export async function startSonataSeller(
  options: {
    port?: number;
    host?: string;
    behaviour?: Partial<SonataSellerBehaviour>;
    catalog?: CatalogFile;
    random?: () => number;
    credentials?: ClientCredentials;
    offeringPrefix?: string;
    record?: boolean;
  } = {},
): Promise<SonataSeller> {
  const behaviour = { ...quietBehaviour, ...options.behaviour };
  const catalog = options.catalog ?? readCatalogFile(demoCatalogPath);
  const random = options.random ?? Math.random;
  const credentials = options.credentials ?? {
    clientId: 'connectivity-gateway',
    clientSecret: 'simulator-secret',
  };
  const offeringPrefix = options.offeringPrefix ?? DEFAULT_OFFERING_PREFIX;
  const issuer = new TokenIssuer(credentials);
  const record = options.record ?? true;
  const hub = new Hub(record);
  const exchanges: SonataExchange[] = [];
  const scripts = new Map<string, number>();
  const hanging = new Set<ServerResponse>();
  const timers = new Set<NodeJS.Timeout>();
  let url = '';

  const state: SellerState = {
    lifecycles: new Map(),
    charges: new Map(),
    cancellations: new Map(),
    products: new Map(),
    hub,
    after(ms, action) {
      const timer = setTimeout(() => {
        timers.delete(timer);
        action();
      }, ms);
      timers.add(timer);
    },
    schedule(lifecycle, stepMs, href) {
      const timer = setTimeout(() => {
        timers.delete(timer);
        hub.publish(lifecycle, lifecycle.advance(new Date()), href);
        if (!lifecycle.complete()) state.schedule(lifecycle, stepMs, href);
      }, stepMs);
      timers.add(timer);
    },
  };
  const contexts = new Map<string, SellerContext>();
  const contextOf = (sourceKey: string, mode: SonataSellerMode): SellerContext | null => {
    const source = catalog.sources.find((candidate) => candidate.key === sourceKey);
    if (!source) return null;
    const key = `${sourceKey}/${mode}`;
    const context = contexts.get(key) ?? {
      sourceKey,
      mode,
      catalog,
      network: source.network,
      offerings: sonataProductOfferings(catalog, sourceKey, offeringPrefix),
      offeringPrefix,
      stepMs: behaviour.stepMs,
      apiBase: (api: SonataApi) => `${url}/sonata/${sourceKey}/${mode}${API_PATHS[api]}`,
    };
    contexts.set(key, context);
    return context;
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const requestUrl = new URL(req.url ?? '/', 'http://seller');
    const method = req.method ?? 'GET';
    const text = await readBody(req);
    const token = TOKEN_ROUTE.exec(requestUrl.pathname);
    if (token?.[1] && method === 'POST') {
      const expiresIn = requestUrl.searchParams.get('expires_in');
      send(
        res,
        issuer.issue(
          token[1],
          req.headers.authorization,
          text ?? '',
          expiresIn === null ? null : Number(expiresIn),
        ),
      );
      return;
    }
    let body: unknown;
    if (text) {
      try {
        body = JSON.parse(text);
      } catch (error) {
        body = error as SyntaxError;
      }
    }
    const exchange = (answer: SellerAnswer, raw?: string) => {
      if (record)
        exchanges.push({
          method,
          path: requestUrl.pathname,
          query: Object.fromEntries(requestUrl.searchParams),
          requestBody: body instanceof SyntaxError ? text : body,
          status: answer.status,
          responseBody: raw ?? answer.body,
        });
      send(res, answer);
    };
    const knobs = callKnobs(requestUrl, behaviour, random, scripts);
    if (knobs.mode === 'hang') {
      hanging.add(res);
      res.once('close', () => hanging.delete(res));
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, knobs.latencyMs));
    const route = ROUTE.exec(requestUrl.pathname);
    const mode = route?.[2] as SonataSellerMode | undefined;
    const context = route?.[1] && mode && sellerModes.includes(mode) ? contextOf(route[1], mode) : null;
    if (!route || !context) {
      exchange(error404(`No Sonata seller at ${requestUrl.pathname}.`));
      return;
    }
    if (text === null) {
      exchange(error400('invalidBody', `The body exceeds ${MAX_BODY_BYTES} bytes.`));
      return;
    }
    switch (knobs.mode) {
      case '200':
        break;
      case 'malformed': {
        const raw = '{"id": "1", "state": "ackn';
        if (record)
          exchanges.push({
            method,
            path: requestUrl.pathname,
            query: Object.fromEntries(requestUrl.searchParams),
            requestBody: body,
            status: method === 'POST' ? 201 : 200,
            responseBody: raw,
          });
        res.writeHead(method === 'POST' ? 201 : 200, { 'content-type': 'application/json;charset=utf-8' });
        res.end(raw);
        return;
      }
      case '401':
        exchange(error401('invalidCredentials', 'Forced by the mode knob.'));
        return;
      case '404':
        exchange(error404('Forced by the mode knob.'));
        return;
      case '422':
        exchange(error422([{ code: 'otherIssue', propertyPath: '', reason: 'Forced by the mode knob.' }]));
        return;
      case '429':
        exchange(error429('Forced by the mode knob.', Number(knobs.retryAfter ?? 1)));
        return;
      case '500':
      case '503':
        exchange(error5xx(Number(knobs.mode) as 500 | 503, knobs.retryAfter));
        return;
      default:
        exchange(error400('invalidQuery', `Unknown mode knob ${knobs.mode}.`));
        return;
    }
    const refused = issuer.check(context.sourceKey, req.headers.authorization);
    if (refused) {
      exchange(refused);
      return;
    }
    const api = (Object.keys(API_PATHS) as SonataApi[]).find((key) => API_PATHS[key] === route[3]) ?? 'poq';
    const call = { method, path: route[4] ?? '/', query: requestUrl.searchParams, body, now: new Date() };
    let answered: { answer: SellerAnswer; after?: () => void };
    if (api === 'order') {
      const order = orderKnobs(requestUrl, context.stepMs);
      answered =
        typeof order === 'string'
          ? { answer: error400('invalidQuery', order) }
          : answerOrderCall(state, context, { ...call, api }, { ...order, retryAfter: knobs.retryAfter });
    } else if (api === 'inventory') {
      const productRead = inventoryKnob(requestUrl);
      answered =
        typeof productRead === 'string'
          ? { answer: error400('invalidQuery', productRead) }
          : {
              answer: answerInventoryCall(
                state,
                context,
                { ...call, api },
                { productRead, retryAfter: knobs.retryAfter },
              ),
            };
    } else {
      answered = answerApiCall(
        state,
        context,
        { ...call, api },
        {
          unableToProvide: requestUrl.searchParams.get('outcome') === 'unableToProvide',
          withoutPrice: requestUrl.searchParams.get('price') === 'none',
          retryAfter: knobs.retryAfter,
        },
      );
    }
    if (knobs.lateAnswerMs > 0) {
      answered.after?.();
      await new Promise((resolve) => setTimeout(resolve, knobs.lateAnswerMs));
      exchange(answered.answer);
      return;
    }
    exchange(answered.answer);
    answered.after?.();
  };

  const server: Server = createServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) send(res, error5xx(500, null));
      else res.destroy();
    });
  });
  await new Promise<void>((resolve) =>
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', resolve),
  );
  const { port } = server.address() as AddressInfo;
  url = `http://${options.host ?? '127.0.0.1'}:${port}`;
  return {
    url,
    port,
    credentials,
    exchanges,
    notifications: hub.sent,
    baseUrl: (sourceKey, mode = 'instant', query = {}) => {
      const search = new URLSearchParams(query).toString();
      return `${url}/sonata/${sourceKey}/${mode}${search ? `?${search}` : ''}`;
    },
    tokenUrl: (sourceKey) => `${url}/sonata/${sourceKey}/oauth2/token`,
    settled: () => hub.settled(),
    stop: async () => {
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      for (const res of hanging) res.destroy();
      await hub.stop();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
