import Database from 'better-sqlite3';
import {
  type CountedList,
  eventStreamClaimsFromEnvironment,
  type PreparedElement,
  type RawStore,
  serveRawCeiling,
} from './raw-documents.js';

/*
 * The SQLite ceiling of the HTTP scenarios: plain node:http and better-sqlite3 prepared statements, no
 * framework, no ORM, no auth. It opens the same seeded database file as the gateway and answers
 * byte-for-byte the gateway's REST documents for the list pages and the batch create (`raw-documents.ts`),
 * doing the same SQL work in the cheapest way. Environment: PORT, HOST, DATABASE_URL, BENCH_INSTANCE_ID (the
 * instance it serves), BENCH_SSE_CLAIMS (the gateway's `sse_jwt` claims to sign), TOKEN_SIGNING_SECRET when the gateway gets one (else the secret kept in the database,
 * as the gateway), and RAW_LIST_TOTAL: `table` (default) reads an unfiltered list's total from
 * `list_totals`, one primary-key lookup, as the gateway does since migration 0003; `scan` counts it with
 * `count(*)` over the instance's rows, as the gateway did before, so one run can also measure the gateway
 * against the ceiling it used to have.
 *
 * Its pages bind LIMIT as `cast(? as integer)`, as the gateway does (`src/db/sqlite/bound-limit.ts`): SQLite
 * compiles a statement with a bare `LIMIT ?` again on every run, which is not the cheapest way.
 */

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

const listTotal = db.prepare('select total from list_totals where instance_id = ? and list = ?').pluck();
const scanRequests = db.prepare('select count(*) from availability_requests where instance_id = ?').pluck();
const scanCustomers = db.prepare('select count(*) from customers where instance_id = ?').pluck();
const requestPage = db
  .prepare(
    `select r.id, r.created_at, r.updated_at, r.filters, r.status, r.sources_total, r.sources_finished,
            a.id, a.street, a.city, a.continent_code, a.country_code, a.postal_code, a.house_number,
            a.house_number_addition, a.latitude, a.longitude
       from availability_requests r join addresses a on a.id = r.address_id
      where r.instance_id = ? order by r.created_at desc, r.id desc limit cast(? as integer) offset ?`,
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
  .prepare(
    `${customerColumns} where c.instance_id = ? order by c.name_folded, c.id limit cast(? as integer) offset ?`,
  )
  .raw();
const namedCustomerPage = db
  .prepare(
    `${customerColumns} where c.instance_id = ? and instr(c.name_folded, ?) > 0
      order by c.name_folded, c.id limit cast(? as integer) offset ?`,
  )
  .raw();
const defaultPlanId = db
  .prepare('select id from price_plans where instance_id = ? and is_default = 1')
  .pluck()
  .get(instanceId) as string;
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

/** One transaction: per element its address, its request and one queued task per matching NL source. */
const createBatch = db.transaction((elements: PreparedElement[], now: number) => {
  for (const e of elements) {
    insertAddress.run(
      e.addressId,
      instanceId,
      e.street,
      e.city,
      e.houseNumber,
      e.houseNumberAddition,
      e.postalCode,
      e.countryCode,
      e.continentCode,
      now,
      now,
    );
    const sources = e.sourceIds.length;
    insertRequest.run(
      e.requestId,
      instanceId,
      e.addressId,
      defaultPlanId,
      e.filters,
      e.status,
      sources,
      now,
      now,
    );
    if (sources > 0) insertTask.run(instanceId, e.requestId, now, now, now, JSON.stringify(e.sourceIds));
  }
});

const store: RawStore = {
  unfilteredTotal: (list: CountedList) => {
    if (listTotalSource === 'table') return (listTotal.get(instanceId, list) as number | undefined) ?? 0;
    return (list === 'customers' ? scanCustomers : scanRequests).get(instanceId) as number;
  },
  requestPage: (limit, offset) => requestPage.all(instanceId, limit, offset) as unknown[][],
  countNamedCustomers: (folded) => countNamedCustomers.get(instanceId, folded) as number,
  customerPage: (folded, limit, offset) =>
    (folded
      ? namedCustomerPage.all(instanceId, folded, limit, offset)
      : allCustomerPage.all(instanceId, limit, offset)) as unknown[][],
  nlSources: db
    .prepare(
      `select id, network from sources where instance_id = ? and enabled = 1
          and exists (select 1 from json_each(country_codes) where value = 'NL') order by network, name`,
    )
    .all(instanceId) as { id: string; network: string }[],
  createBatch: (elements, now) => createBatch.immediate(elements, now),
  close: () => {
    db.close();
  },
};

serveRawCeiling({
  store,
  instanceId,
  eventStreamClaims: eventStreamClaimsFromEnvironment(),
  signingSecret:
    process.env.TOKEN_SIGNING_SECRET ??
    (db
      .prepare(`select value from service_settings where key = 'token_signing_secret'`)
      .pluck()
      .get() as string),
  port: Number(process.env.PORT ?? 4100),
  host: process.env.HOST ?? '127.0.0.1',
});
