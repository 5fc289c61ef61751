import { createHmac } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import Database from 'better-sqlite3';
import { typeIdAt } from '../lib/typeid.js';

/*
 * The ceiling of the HTTP scenarios: plain node:http and better-sqlite3 prepared statements, no framework,
 * no ORM, no auth. It opens the same seeded database file as the gateway and answers byte-for-byte the
 * gateway's REST documents for the list pages and the batch create, doing the same SQL work in the
 * cheapest way. Environment: PORT, HOST, DATABASE_URL, BENCH_INSTANCE_ID (the instance it serves),
 * TOKEN_SIGNING_SECRET when the gateway gets one (else the secret kept in the database, as the gateway), and
 * RAW_LIST_TOTAL: `table` (default) reads an unfiltered list's total from `list_totals`, one primary-key
 * lookup, as the gateway does since migration 0003; `scan` counts it with `count(*)` over the instance's rows,
 * as the gateway did before, so one run can also measure the gateway against the ceiling it used to have.
 */

const port = Number(process.env.PORT ?? 4100);
const host = process.env.HOST ?? '127.0.0.1';
const instanceId = process.env.BENCH_INSTANCE_ID ?? '';
const listTotalSource = process.env.RAW_LIST_TOTAL ?? 'table';
if (!process.env.DATABASE_URL || !instanceId)
  throw new Error('DATABASE_URL and BENCH_INSTANCE_ID are required');
if (listTotalSource !== 'table' && listTotalSource !== 'scan')
  throw new Error(`RAW_LIST_TOTAL must be table or scan, not ${listTotalSource}`);

const db = new Database(process.env.DATABASE_URL);
db.pragma('journal_mode = WAL');
db.pragma('synchronous = NORMAL');
db.pragma('foreign_keys = ON');
db.pragma('busy_timeout = 5000');

const signingSecret =
  process.env.TOKEN_SIGNING_SECRET ??
  (db
    .prepare(`select value from service_settings where key = 'token_signing_secret'`)
    .pluck()
    .get() as string);

const listTotal = db.prepare('select total from list_totals where instance_id = ? and list = ?').pluck();
const scanRequests = db.prepare('select count(*) from availability_requests where instance_id = ?').pluck();
const scanCustomers = db.prepare('select count(*) from customers where instance_id = ?').pluck();

/** The total of an unfiltered list, read as `RAW_LIST_TOTAL` says (an instance without rows has no total row). */
function unfilteredTotal(list: 'availability_requests' | 'customers'): number {
  if (listTotalSource === 'table') return (listTotal.get(instanceId, list) as number | undefined) ?? 0;
  return (list === 'customers' ? scanCustomers : scanRequests).get(instanceId) as number;
}

const requestPage = db
  .prepare(
    `select r.id, r.created_at, r.updated_at, r.filters, r.status, r.sources_total, r.sources_finished,
            a.id, a.street, a.city, a.continent_code, a.country_code, a.postal_code, a.house_number,
            a.house_number_addition, a.latitude, a.longitude
       from availability_requests r join addresses a on a.id = r.address_id
      where r.instance_id = ? order by r.created_at desc, r.id desc limit ? offset ?`,
  )
  .raw();
const countNamedCustomers = db
  .prepare('select count(*) from customers where instance_id = ? and instr(name_folded, ?) > 0')
  .pluck();
const customerColumns = `select c.id, p.id, p.name, u.id, u.first_name, u.last_name, c.interconnected, f.apply_vat,
            c.auto_sequence, c.name, c.external_id, c.legal_name, c.business_registration_number, c.website
       from customers c join price_plans p on p.id = c.price_plan_id
       join users u on u.id = c.account_manager_user_id
       left join customer_financial_details f on f.customer_id = c.id`;
const allCustomerPage = db
  .prepare(`${customerColumns} where c.instance_id = ? order by c.name_folded, c.id limit ? offset ?`)
  .raw();
const namedCustomerPage = db
  .prepare(
    `${customerColumns} where c.instance_id = ? and instr(c.name_folded, ?) > 0
      order by c.name_folded, c.id limit ? offset ?`,
  )
  .raw();
const defaultPlanId = db
  .prepare('select id from price_plans where instance_id = ? and is_default = 1')
  .pluck()
  .get(instanceId) as string;
const nlSources = db
  .prepare(
    `select id, network from sources where instance_id = ? and enabled = 1
        and exists (select 1 from json_each(country_codes) where value = 'NL') order by network, name`,
  )
  .all(instanceId) as { id: string; network: string }[];
const insertAddress = db.prepare(
  `insert into addresses (id, instance_id, input_kind, street, city, house_number, house_number_addition,
     postal_code, country_code, continent_code, latitude, longitude, coordinates_precision, created_at, updated_at)
   values (?, ?, 'fields', ?, ?, ?, ?, ?, ?, ?, null, null, null, ?, ?)`,
);
const insertRequest = db.prepare(
  `insert into availability_requests (id, instance_id, address_id, created_by_user_id, customer_id, project_id,
     price_plan_id, filters, status, sources_total, sources_finished, created_at, updated_at)
   values (?, ?, ?, null, null, null, ?, ?, ?, ?, 0, ?, ?)`,
);
const insertTask = db.prepare(
  `insert into gathering_tasks (instance_id, availability_request_id, source_id, status, attempts, available_at,
     created_at, updated_at) select ?, ?, value, 'queued', 0, ?, ?, ? from json_each(?)`,
);

const isoTimestamp = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, '+00:00');
const base64url = (value: string) => Buffer.from(value).toString('base64url');
const jwtHeader = base64url(JSON.stringify({ alg: 'HS256', typ: 'JWT' }));
const topic = `${instanceId}/availability_request`;

let issued = { token: '', iat: -1 };

/**
 * The gateway's `sse_jwt`: HS256, `{mercure: {publish: [], subscribe: [topic]}, iat, exp: iat + 600}`, handed
 * out again for 60 s after it was signed, as the gateway does (`EVENT_STREAM_TOKEN_REUSE_SECONDS`).
 */
function eventStreamToken(): string {
  const now = Math.floor(Date.now() / 1000);
  if (now >= issued.iat && now - issued.iat < 60) return issued.token;
  const claims = { mercure: { publish: [], subscribe: [topic] }, iat: now, exp: now + 600 };
  const payload = base64url(JSON.stringify(claims));
  const signature = createHmac('sha256', signingSecret).update(`${jwtHeader}.${payload}`).digest('base64url');
  issued = { token: `${jwtHeader}.${payload}.${signature}`, iat: now };
  return issued.token;
}

function send(res: ServerResponse, status: number, body: unknown, type = 'application/json; charset=utf-8') {
  const payload = JSON.stringify(body);
  res.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(payload) });
  res.end(payload);
}

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

function listRequests(res: ServerResponse, query: URLSearchParams) {
  const page = pageOf(query);
  if (!page) return send(res, 422, { status: 422 }, 'application/problem+json; charset=utf-8');
  const total = unfilteredTotal('availability_requests');
  const rows = requestPage.all(instanceId, page.size, (page.page - 1) * page.size) as unknown[][];
  const data = rows.map((row) => {
    const filters = JSON.parse(row[3] as string);
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
  });
  send(res, 200, { data, sse_jwt: eventStreamToken(), pagination: pagination(page, total) });
}

function listCustomers(res: ServerResponse, query: URLSearchParams) {
  const page = pageOf(query);
  const name = query.get('filter[name]');
  if (!page || (name !== null && name.length > 200)) {
    return send(res, 422, { status: 422 }, 'application/problem+json; charset=utf-8');
  }
  const folded = name ? name.normalize('NFKC').toLocaleLowerCase('und') : null;
  const offset = (page.page - 1) * page.size;
  const total = folded
    ? (countNamedCustomers.get(instanceId, folded) as number)
    : unfilteredTotal('customers');
  const rows = (
    folded
      ? namedCustomerPage.all(instanceId, folded, page.size, offset)
      : allCustomerPage.all(instanceId, page.size, offset)
  ) as unknown[][];
  const data = rows.map((row) => ({
    id: row[0],
    price_plan: { id: row[1], name: row[2], _document_type: 'price_plan' },
    account_manager: { id: row[3], first_name: row[4], last_name: row[5], _document_type: 'user' },
    interconnected: row[6] === 1,
    apply_vat: row[7] === 1,
    auto_number: String(row[8]).padStart(5, '0'),
    name: row[9],
    external_id: row[10] ?? '',
    legal_name: row[11] ?? '',
    business_registration_number: row[12] ?? '',
    website: row[13] ?? '',
    _document_type: 'customer',
  }));
  send(res, 200, { data, pagination: pagination(page, total) });
}

interface Element {
  address?: Record<string, string | undefined>;
  networks?: string[];
  bandwidths?: { download: number; upload: number }[];
  contract_terms?: number[];
  connection_types?: string[];
  technology_types?: string[];
}

/** One transaction: per element its address, its request and one queued task per matching NL source. */
const createBatch = db.transaction((elements: Element[], now: number) =>
  elements.map((element) => {
    const address = element.address ?? {};
    const countryCode = (address.country_code ?? '').trim();
    const addressId = typeIdAt('adr', now);
    insertAddress.run(
      addressId,
      instanceId,
      (address.street ?? '').trim(),
      (address.city ?? '').trim(),
      (address.house_number ?? '').trim(),
      (address.house_number_addition ?? '').trim(),
      (address.postal_code ?? '').replace(/\s+/g, '').toUpperCase(),
      countryCode,
      countryCode === 'NL' ? 'EU' : '',
      now,
      now,
    );
    const networks = element.networks ?? [];
    const sources =
      countryCode === 'NL'
        ? nlSources.filter((s) => networks.length === 0 || networks.includes(s.network))
        : [];
    const filters = {
      bandwidths: element.bandwidths ?? [],
      networks,
      contractTerms: element.contract_terms ?? [],
      connectionTypes: element.connection_types ?? [],
      technologyTypes: element.technology_types ?? [],
    };
    const requestId = typeIdAt('avr', now);
    const status = sources.length === 0 ? 'completed' : 'pending';
    insertRequest.run(
      requestId,
      instanceId,
      addressId,
      defaultPlanId,
      JSON.stringify(filters),
      status,
      sources.length,
      now,
      now,
    );
    if (sources.length > 0) {
      insertTask.run(
        instanceId,
        requestId,
        now,
        now,
        now,
        JSON.stringify(sources.map((source) => source.id)),
      );
    }
    return { id: requestId };
  }),
);

async function createRequests(req: IncomingMessage, res: ServerResponse) {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  let elements: unknown;
  try {
    elements = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    return send(res, 400, { status: 400 }, 'application/problem+json; charset=utf-8');
  }
  if (!Array.isArray(elements) || elements.length < 1 || elements.length > 500) {
    return send(res, 422, { status: 422 }, 'application/problem+json; charset=utf-8');
  }
  const data = createBatch.immediate(elements as Element[], Date.now());
  const count = data.length;
  send(res, 201, {
    data,
    message: `${count} availability request${count === 1 ? '' : 's'} created; gathering started.`,
  });
}

const server = createServer((req, res) => {
  const url = req.url ?? '/';
  const mark = url.indexOf('?');
  const path = mark === -1 ? url : url.slice(0, mark);
  const query = new URLSearchParams(mark === -1 ? '' : url.slice(mark + 1));
  try {
    if (req.method === 'GET' && path === '/availability-requests') return listRequests(res, query);
    if (req.method === 'GET' && path === '/customers') return listCustomers(res, query);
    if (req.method === 'GET' && path === '/healthz') return send(res, 200, { status: 'ok' });
    if (req.method === 'POST' && path === '/availability-requests') {
      createRequests(req, res).catch((error: unknown) =>
        send(res, 500, { status: 500, detail: String(error) }),
      );
      return;
    }
    send(res, 404, { status: 404 }, 'application/problem+json; charset=utf-8');
  } catch (error) {
    send(res, 500, { status: 500, detail: String(error) }, 'application/problem+json; charset=utf-8');
  }
});
server.listen(port, host);
process.once('SIGTERM', () => {
  server.close();
  server.closeAllConnections();
  db.close();
  process.exit(0);
});
