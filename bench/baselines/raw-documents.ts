import { createHmac } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { typeIdAt } from '../lib/typeid.js';

/*
 * What the raw ceilings (`raw-http.ts` on SQLite, `raw-http-pg.ts` on PostgreSQL) share: the gateway's REST
 * documents built from plain row tuples, the request parsing, and the node:http routing. Each ceiling
 * brings only its store's SQL, done the cheapest way its driver allows.
 */

/** Which list an unfiltered total is read for. */
export type CountedList = 'availability_requests' | 'customers';

/**
 * One row of the request list page, in this column order: request id, created and updated (epoch ms),
 * filters (stored JSON text, or the parsed object a driver returns for `jsonb`), status, sources total,
 * sources finished, then the address: id, street, city, continent, country, postal code, house number,
 * addition, latitude, longitude.
 */
export type RequestRow = unknown[];
/**
 * One row of the customer list page: customer id, price plan id and name, account manager id, first and
 * last name, interconnected, apply VAT (0/1 or a boolean), auto sequence, name, external id, legal name,
 * business registration number, website.
 */
export type CustomerRow = unknown[];

/** A request element of the batch create, as sent. */
export interface Element {
  address?: Record<string, string | undefined>;
  networks?: string[];
  bandwidths?: { download: number; upload: number }[];
  contract_terms?: number[];
  connection_types?: string[];
  technology_types?: string[];
}

/** One element normalised as the gateway stores it: its address, request, and the sources it queues. */
export interface PreparedElement {
  addressId: string;
  street: string;
  city: string;
  houseNumber: string;
  houseNumberAddition: string;
  postalCode: string;
  countryCode: string;
  continentCode: string;
  requestId: string;
  /** Stored filters, as JSON text. */
  filters: string;
  status: 'pending' | 'completed';
  sourceIds: string[];
}

/** The store work of one ceiling; everything else is {@link serveRawCeiling}'s. */
export interface RawStore {
  unfilteredTotal(list: CountedList): Promise<number> | number;
  requestPage(limit: number, offset: number): Promise<RequestRow[]> | RequestRow[];
  /** Customers whose folded name contains `folded`. */
  countNamedCustomers(folded: string): Promise<number> | number;
  /** A customer page, of those whose folded name contains `folded` when given. */
  customerPage(folded: string | null, limit: number, offset: number): Promise<CustomerRow[]> | CustomerRow[];
  /** The instance's enabled NL sources, by network then name. */
  nlSources: readonly { id: string; network: string }[];
  /** Writes the batch in one transaction (timestamps `now`, epoch ms). */
  createBatch(elements: PreparedElement[], now: number): Promise<void> | void;
  close(): Promise<void> | void;
}

const isoTimestamp = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, '+00:00');
const base64url = (value: string) => Buffer.from(value).toString('base64url');
const jwtHeader = base64url(JSON.stringify({ alg: 'HS256', typ: 'JWT' }));

/**
 * The gateway's `sse_jwt` with `claims` (its topics and session, as the gateway signs them for the bench's
 * token: `BENCH_SSE_CLAIMS`): HS256, `{...claims, iat, exp: iat + 600}`, handed out again for 60 s after it
 * was signed, as the gateway does (`EVENT_STREAM_TOKEN_REUSE_SECONDS`).
 */
function eventStreamTokens(signingSecret: string, claims: Readonly<Record<string, unknown>>): () => string {
  let issued = { token: '', iat: -1 };
  return () => {
    const now = Math.floor(Date.now() / 1000);
    if (now >= issued.iat && now - issued.iat < 60) return issued.token;
    const payload = base64url(JSON.stringify({ ...claims, iat: now, exp: now + 600 }));
    const signature = createHmac('sha256', signingSecret)
      .update(`${jwtHeader}.${payload}`)
      .digest('base64url');
    issued = { token: `${jwtHeader}.${payload}.${signature}`, iat: now };
    return issued.token;
  };
}

function send(res: ServerResponse, status: number, body: unknown, type = 'application/json; charset=utf-8') {
  const payload = JSON.stringify(body);
  res.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(payload) });
  res.end(payload);
}

const problem = (res: ServerResponse, status: number, detail?: string) =>
  send(res, status, { status, ...(detail ? { detail } : {}) }, 'application/problem+json; charset=utf-8');

/** `page` and `page_size` as the gateway reads them (1-based; size 1–100, default 25); null when invalid. */
function pageOf(query: URLSearchParams): { page: number; size: number } | null {
  const page = Number(query.get('page') ?? 1);
  const size = Number(query.get('page_size') ?? 25);
  if (!Number.isInteger(page) || page < 1 || !Number.isInteger(size) || size < 1 || size > 100) return null;
  return { page, size };
}

function pagination(page: { page: number; size: number }, total: number) {
  return {
    page_size: page.size,
    current_page: page.page,
    total_items: total,
    total_pages: Math.ceil(total / page.size),
  };
}

const flag = (value: unknown) => value === 1 || value === true;

function requestDocument(row: RequestRow) {
  const filters = typeof row[3] === 'string' ? JSON.parse(row[3]) : row[3];
  const total = row[5] as number;
  const latitude = row[15] as number | null;
  const longitude = row[16] as number | null;
  return {
    id: row[0],
    address: {
      id: row[7],
      street: row[8],
      city: row[9],
      continent_code: row[10],
      country_code: row[11],
      postal_code: row[12],
      house_number: row[13],
      house_number_addition: row[14],
      coordinates: latitude === null || longitude === null ? null : { latitude, longitude },
      _document_type: 'address',
    },
    created_at: isoTimestamp(row[1] as number),
    updated_at: isoTimestamp(row[2] as number),
    filters: {
      contract_terms: filters.contractTerms,
      connection_types: filters.connectionTypes,
      bandwidths: filters.bandwidths,
      technology_types: filters.technologyTypes,
      networks: filters.networks,
    },
    networks_progress_percentage: (total === 0
      ? 100
      : Math.round(((row[6] as number) * 10_000) / total) / 100
    ).toFixed(2),
    status: row[4],
    _document_type: 'availability_request',
  };
}

function customerDocument(row: CustomerRow) {
  return {
    id: row[0],
    price_plan: { id: row[1], name: row[2], _document_type: 'price_plan' },
    account_manager: { id: row[3], first_name: row[4], last_name: row[5], _document_type: 'user' },
    interconnected: flag(row[6]),
    apply_vat: flag(row[7]),
    auto_number: String(row[8]).padStart(5, '0'),
    name: row[9],
    external_id: row[10] ?? '',
    legal_name: row[11] ?? '',
    business_registration_number: row[12] ?? '',
    website: row[13] ?? '',
    _document_type: 'customer',
  };
}

/** An element as the gateway stores it: trimmed address fields, `1016 XA` → `1016XA`, matching NL sources. */
function prepareElement(element: Element, sources: RawStore['nlSources'], now: number): PreparedElement {
  const address = element.address ?? {};
  const countryCode = (address.country_code ?? '').trim();
  const networks = element.networks ?? [];
  const sourceIds =
    countryCode === 'NL'
      ? sources.filter((s) => networks.length === 0 || networks.includes(s.network)).map((s) => s.id)
      : [];
  return {
    addressId: typeIdAt('adr', now),
    street: (address.street ?? '').trim(),
    city: (address.city ?? '').trim(),
    houseNumber: (address.house_number ?? '').trim(),
    houseNumberAddition: (address.house_number_addition ?? '').trim(),
    postalCode: (address.postal_code ?? '').replace(/\s+/g, '').toUpperCase(),
    countryCode,
    continentCode: countryCode === 'NL' ? 'EU' : '',
    requestId: typeIdAt('avr', now),
    filters: JSON.stringify({
      bandwidths: element.bandwidths ?? [],
      networks,
      contractTerms: element.contract_terms ?? [],
      connectionTypes: element.connection_types ?? [],
      technologyTypes: element.technology_types ?? [],
    }),
    status: sourceIds.length === 0 ? 'completed' : 'pending',
    sourceIds,
  };
}

/**
 * Serves the gateway's REST documents for `GET /availability-requests`, `GET /customers` (with
 * `filter[name]`) and `POST /availability-requests` of instance `instanceId` from `store`, plus `GET
 * /healthz`; no auth, no framework. SIGTERM closes the server and the store and exits.
 */
export function serveRawCeiling(options: {
  store: RawStore;
  instanceId: string;
  signingSecret: string;
  /** The `sse_jwt` claims besides `iat` and `exp`, in the gateway's order (`BENCH_SSE_CLAIMS`). */
  eventStreamClaims: Readonly<Record<string, unknown>>;
  port: number;
  host: string;
}): Server {
  const { store } = options;
  const eventStreamToken = eventStreamTokens(options.signingSecret, options.eventStreamClaims);

  async function listRequests(res: ServerResponse, query: URLSearchParams) {
    const page = pageOf(query);
    if (!page) return problem(res, 422);
    const total = await store.unfilteredTotal('availability_requests');
    const rows = await store.requestPage(page.size, (page.page - 1) * page.size);
    const data = rows.map(requestDocument);
    send(res, 200, { data, sse_jwt: eventStreamToken(), pagination: pagination(page, total) });
  }

  async function listCustomers(res: ServerResponse, query: URLSearchParams) {
    const page = pageOf(query);
    const name = query.get('filter[name]');
    if (!page || (name !== null && name.length > 200)) return problem(res, 422);
    const folded = name ? name.normalize('NFKC').toLocaleLowerCase('und') : null;
    const offset = (page.page - 1) * page.size;
    const total = folded ? await store.countNamedCustomers(folded) : await store.unfilteredTotal('customers');
    const rows = await store.customerPage(folded, page.size, offset);
    send(res, 200, { data: rows.map(customerDocument), pagination: pagination(page, total) });
  }

  async function createRequests(req: IncomingMessage, res: ServerResponse) {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    let elements: unknown;
    try {
      elements = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      return problem(res, 400);
    }
    if (!Array.isArray(elements) || elements.length < 1 || elements.length > 500) return problem(res, 422);
    const now = Date.now();
    const prepared = (elements as Element[]).map((element) => prepareElement(element, store.nlSources, now));
    await store.createBatch(prepared, now);
    const count = prepared.length;
    send(res, 201, {
      data: prepared.map((element) => ({ id: element.requestId })),
      message: `${count} availability request${count === 1 ? '' : 's'} created; gathering started.`,
    });
  }

  const route = (req: IncomingMessage, res: ServerResponse): Promise<void> | void => {
    const url = req.url ?? '/';
    const mark = url.indexOf('?');
    const path = mark === -1 ? url : url.slice(0, mark);
    const query = new URLSearchParams(mark === -1 ? '' : url.slice(mark + 1));
    if (req.method === 'GET' && path === '/availability-requests') return listRequests(res, query);
    if (req.method === 'GET' && path === '/customers') return listCustomers(res, query);
    if (req.method === 'GET' && path === '/healthz') return send(res, 200, { status: 'ok' });
    if (req.method === 'POST' && path === '/availability-requests') return createRequests(req, res);
    problem(res, 404);
  };

  const server = createServer((req, res) => {
    try {
      const done = route(req, res);
      if (done) done.catch((error: unknown) => problem(res, 500, String(error)));
    } catch (error) {
      problem(res, 500, String(error));
    }
  });
  server.listen(options.port, options.host);
  process.once('SIGTERM', () => {
    server.close();
    server.closeAllConnections();
    void Promise.resolve(store.close()).finally(() => process.exit(0));
  });
  return server;
}

/**
 * The `sse_jwt` claims a raw ceiling signs, from `BENCH_SSE_CLAIMS` (a JSON object: the gateway's claims for
 * the bench's token, without `iat` and `exp`).
 *
 * @throws Error when the variable is missing or not a JSON object.
 */
export function eventStreamClaimsFromEnvironment(): Record<string, unknown> {
  const claims: unknown = JSON.parse(process.env.BENCH_SSE_CLAIMS ?? 'null');
  if (typeof claims !== 'object' || claims === null || Array.isArray(claims)) {
    throw new Error('BENCH_SSE_CLAIMS (the gateway’s sse_jwt claims, a JSON object) is required');
  }
  return claims as Record<string, unknown>;
}
