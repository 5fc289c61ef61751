import pg from 'pg';
import {
  type CountedList,
  eventStreamClaimsFromEnvironment,
  type PreparedElement,
  type RawStore,
  serveRawCeiling,
} from './raw-documents.js';

/*
 * The PostgreSQL ceiling of the HTTP scenarios: plain node:http and node-postgres (the gateway's driver), a
 * pool of DATABASE_POOL_SIZE connections (10, the gateway's default), named prepared statements with array
 * rows, no framework, no ORM, no auth. It serves a copy of the same seeded database as the gateway and
 * answers byte-for-byte the gateway's REST documents for the list pages and the batch create
 * (`raw-documents.ts`), with the gateway's SQL — the same indexes, the bytewise (`collate "C"`) orders,
 * totals from `list_totals`, the name filter as `LIKE` on the trigram index — done the cheapest way:
 * timestamps come as epoch milliseconds, and a batch is three `INSERT … SELECT FROM unnest(…)` in one
 * statement. Environment: PORT, HOST, DATABASE_URL (postgres://), BENCH_INSTANCE_ID, BENCH_SSE_CLAIMS, DATABASE_POOL_SIZE,
 * TOKEN_SIGNING_SECRET when the gateway gets one (else the secret kept in the database, as the gateway).
 */

const instanceId = process.env.BENCH_INSTANCE_ID ?? '';
if (!process.env.DATABASE_URL || !instanceId)
  throw new Error('DATABASE_URL and BENCH_INSTANCE_ID are required');

const pool = new pg.Pool({
  connectionString: process.env.DATABASE_URL,
  max: Number(process.env.DATABASE_POOL_SIZE ?? 10),
});

/**
 * A named (server-side prepared, once per connection) statement returning array rows, run on the pool or,
 * inside a transaction, on `on`'s connection.
 */
function statement(name: string, text: string) {
  return async (values: unknown[], on: pg.Pool | pg.PoolClient = pool): Promise<unknown[][]> =>
    (await on.query({ name, text, values, rowMode: 'array' })).rows as unknown[][];
}

const listTotal = statement(
  'list_total',
  'select coalesce(sum(total), 0)::int from list_totals where instance_id = $1 and list = $2',
);
const requestPage = statement(
  'request_page',
  `select r.id, (extract(epoch from r.created_at) * 1000)::float8, (extract(epoch from r.updated_at) * 1000)::float8,
          r.filters, r.status, r.sources_total, r.sources_finished,
          a.id, a.street, a.city, a.continent_code, a.country_code, a.postal_code, a.house_number,
          a.house_number_addition, a.latitude, a.longitude
     from availability_requests r join addresses a on a.id = r.address_id
    where r.instance_id = $1 order by r.created_at desc, r.id collate "C" desc limit $2 offset $3`,
);
const countNamedCustomers = statement(
  'count_named_customers',
  'select count(*)::int from customers where instance_id = $1 and name_folded like $2',
);
const customerColumns = `select c.id, p.id, p.name, u.id, u.first_name, u.last_name, c.interconnected, f.apply_vat,
            c.auto_sequence, c.name, c.external_id, c.legal_name, c.business_registration_number, c.website
       from customers c join price_plans p on p.id = c.price_plan_id
       join users u on u.id = c.account_manager_user_id
       left join customer_financial_details f on f.customer_id = c.id`;
const customerOrder = 'order by c.name_folded collate "C", c.id collate "C"';
const allCustomerPage = statement(
  'all_customer_page',
  `${customerColumns} where c.instance_id = $1 ${customerOrder} limit $2 offset $3`,
);
const namedCustomerPage = statement(
  'named_customer_page',
  `${customerColumns} where c.instance_id = $1 and c.name_folded like $2 ${customerOrder} limit $3 offset $4`,
);
/**
 * A batch in one statement, as the gateway writes it: the addresses and requests inserts as `WITH` parts of
 * the tasks insert, one round trip and a transaction of its own.
 */
const insertBatch = statement(
  'insert_batch',
  `with s1 as (
     insert into addresses (id, instance_id, input_kind, street, city, house_number, house_number_addition,
       postal_code, country_code, continent_code, latitude, longitude, coordinates_precision, created_at, updated_at)
     select id, $1, 'fields', street, city, house_number, addition, postal_code, country_code, continent_code,
            null, null, null, $2, $2
       from unnest($4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[], $10::text[], $11::text[])
         as t(id, street, city, house_number, addition, postal_code, country_code, continent_code)
   ), s2 as (
     insert into availability_requests (id, instance_id, address_id, created_by_user_id, customer_id, project_id,
       price_plan_id, filters, status, sources_total, sources_finished, created_at, updated_at)
     select id, $1, address_id, null, null, null, $3, filters, status, sources_total, 0, $2, $2
       from unnest($12::text[], $4::text[], $13::jsonb[], $14::text[], $15::int[])
         as t(id, address_id, filters, status, sources_total)
   )
   insert into gathering_tasks (instance_id, availability_request_id, source_id, status, attempts, available_at,
     created_at, updated_at)
   select $1, request_id, source_id, 'queued', 0, $2, $2, $2
     from unnest($16::text[], $17::text[]) with ordinality as t(request_id, source_id, n) order by n`,
);

/** `LIKE` pattern of a substring, with `%`, `_` and `\` escaped, as the gateway writes it. */
const containing = (folded: string) => `%${folded.replace(/[\\%_]/g, (char) => `\\${char}`)}%`;

const [defaultPlan] = await pool
  .query<{ id: string }>('select id from price_plans where instance_id = $1 and is_default', [instanceId])
  .then((result) => result.rows);
if (!defaultPlan) throw new Error(`instance ${instanceId} has no default price plan`);
const nlSources = (
  await pool.query<{ id: string; network: string }>(
    `select id, network from sources where instance_id = $1 and enabled and country_codes ? 'NL'
      order by network collate "C", name collate "C"`,
    [instanceId],
  )
).rows;

const store: RawStore = {
  unfilteredTotal: async (list: CountedList) => Number((await listTotal([instanceId, list]))[0]?.[0] ?? 0),
  requestPage: (limit, offset) => requestPage([instanceId, limit, offset]),
  countNamedCustomers: async (folded) =>
    (await countNamedCustomers([instanceId, containing(folded)]))[0]?.[0] as number,
  customerPage: (folded, limit, offset) =>
    folded
      ? namedCustomerPage([instanceId, containing(folded), limit, offset])
      : allCustomerPage([instanceId, limit, offset]),
  nlSources,
  createBatch: async (elements: PreparedElement[], now: number) => {
    const at = new Date(now);
    const column = <K extends keyof PreparedElement>(key: K) => elements.map((e) => e[key]);
    const tasks = elements.flatMap((e) => e.sourceIds.map((sourceId) => [e.requestId, sourceId] as const));
    await insertBatch([
      instanceId,
      at,
      defaultPlan.id,
      column('addressId'),
      column('street'),
      column('city'),
      column('houseNumber'),
      column('houseNumberAddition'),
      column('postalCode'),
      column('countryCode'),
      column('continentCode'),
      column('requestId'),
      column('filters'),
      column('status'),
      elements.map((e) => e.sourceIds.length),
      tasks.map((task) => task[0]),
      tasks.map((task) => task[1]),
    ]);
  },
  close: () => pool.end(),
};

serveRawCeiling({
  store,
  instanceId,
  eventStreamClaims: eventStreamClaimsFromEnvironment(),
  signingSecret:
    process.env.TOKEN_SIGNING_SECRET ??
    (
      await pool.query<{ value: string }>(
        `select value from service_settings where key = 'token_signing_secret'`,
      )
    ).rows[0]?.value ??
    '',
  port: Number(process.env.PORT ?? 4100),
  host: process.env.HOST ?? '127.0.0.1',
});
