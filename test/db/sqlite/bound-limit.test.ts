import { asc, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { boundLimit } from '../../../src/db/sqlite/bound-limit.js';
import type { SqliteDb } from '../../../src/db/sqlite/client.js';
import * as requestQueries from '../../../src/db/sqlite/queries/availability-requests.js';
import { coveringAreaIds } from '../../../src/db/sqlite/queries/catalog.js';
import { claimTasks } from '../../../src/db/sqlite/queries/claim-tasks.js';
import * as customerQueries from '../../../src/db/sqlite/queries/customers.js';
import { sliceQuotes } from '../../../src/db/sqlite/queries/quotes.js';
import { customers } from '../../../src/db/sqlite/schema/index.js';
import { openSqliteStore } from '../../../src/db/sqlite/store.js';
import type { Store } from '../../../src/db/store.js';
import { createLogger } from '../../../src/logger.js';
import { tempSqlitePath } from '../../helpers/app.js';
import { sqliteConnection } from '../../helpers/store.js';

// One seeded database for the file (see `seed`); its statements are prepared on first use, so every test
// that reads the SQL a query prepares runs that query first here.
const database = tempSqlitePath();
let store: Store;
let db: SqliteDb;

beforeAll(async () => {
  store = await openSqliteStore(database.path, { logger: createLogger('silent') });
  db = sqliteConnection(store);
  seed(db);
});

afterAll(async () => {
  await store.close();
  database.remove();
});

describe('boundLimit', () => {
  it('when drizzle writes a limit through it, then the SQL casts the bound value and binds it per call', () => {
    const query = db
      .select({ id: customers.id })
      .from(customers)
      .orderBy(asc(customers.nameFolded), asc(customers.id))
      .limit(boundLimit(sql.placeholder('limit')));

    expect(query.toSQL().sql).toMatch(/ limit cast\(\? as integer\)$/);
    const prepared = query.prepare();
    expect(prepared.all({ limit: 2 }).map((row) => row.id)).toEqual(['cus_1', 'cus_10']);
    expect(prepared.all({ limit: 3 }).map((row) => row.id)).toEqual(['cus_1', 'cus_10', 'cus_100']);
  });

  it('when given a number, then the number is bound as a parameter, not written into the SQL', () => {
    const { sql: text, params } = db.select().from(customers).limit(boundLimit(1)).toSQL();

    expect(text).toMatch(/ limit cast\(\? as integer\)$/);
    expect(params).toEqual([1]);
  });
});

describe('the reads of the SQLite store with a LIMIT', () => {
  const after = new Date(Date.parse(seededAt) - 500_000);
  it.each([
    {
      read: 'an instance’s requests, newest page',
      index: 'availability_requests_list_idx',
      run: () => requestQueries.listAvailabilityRequestsPage(db, 'ins_seed', { offset: 50, limit: 25 }),
    },
    {
      read: 'an instance’s requests, older than a cursor',
      index: 'availability_requests_list_idx',
      run: () =>
        requestQueries.sliceAvailabilityRequests(db, 'ins_seed', {
          from: { createdAt: after, id: 'avr_000500' },
          direction: 'older',
          limit: 26,
        }),
    },
    {
      read: 'a customer’s requests, newer than a cursor',
      index: 'availability_requests_customer_idx',
      run: () =>
        requestQueries.sliceAvailabilityRequests(db, 'ins_seed', {
          from: { createdAt: after, id: 'avr_000500' },
          direction: 'newer',
          limit: 26,
          customerId: 'cus_1',
        }),
    },
    {
      read: 'an instance’s customers, a page',
      index: 'customers_list_idx',
      run: () =>
        customerQueries.listCustomersPage(db, 'ins_seed', { nameFolded: null, offset: 25, limit: 25 }),
    },
    {
      read: 'an instance’s customers, after a cursor',
      index: 'customers_list_idx',
      run: () =>
        customerQueries.sliceCustomers(db, 'ins_seed', {
          nameFolded: null,
          after: { nameFolded: 'acme 500', id: 'cus_500' },
          limit: 26,
        }),
    },
    {
      read: 'an instance’s quotes, older than a cursor',
      index: 'quotes_list_idx',
      run: () => sliceQuotes(db, 'ins_seed', { after: { createdAt: after, id: 'quo_000500' }, limit: 26 }),
    },
    {
      read: 'a customer’s projects, a page',
      index: 'projects_customer_idx',
      run: () =>
        customerQueries.listProjectsPage(db, 'ins_seed', { customerId: 'cus_1', offset: 0, limit: 5 }),
    },
  ])(
    'when the store reads $read, then its LIMIT is cast and it plans with $index as with a fixed LIMIT',
    async ({ index, run }) => {
      const [statement] = (await statementsOf(run)).filter((text) => / limit /.test(text));

      expect(statement).toMatch(/ limit cast\(\? as integer\)( offset \?)?$/);
      const plan = explainQueryPlan(statement ?? '');
      expect(plan).toContain(`USING INDEX ${index}`);
      expect(plan).toBe(explainQueryPlan(withFixedLimit(statement ?? '')));
    },
  );

  it('when the worker claims tasks, then both claim reads cast their LIMIT and plan as with a fixed LIMIT', async () => {
    const statements = await statementsOf(() =>
      claimTasks(db, { owner: 'worker-a', now: new Date(), leaseMs: 30_000, limit: 4, maxAttempts: 3 }),
    );
    const reads = statements.filter((text) => / limit /.test(text));

    expect(reads).toHaveLength(2);
    for (const read of reads) {
      expect(read).toMatch(/ limit cast\(\? as integer\)$/);
      const plan = explainQueryPlan(read);
      expect(plan).toMatch(/USING (COVERING )?INDEX gathering_tasks_claim_idx/);
      expect(plan).toBe(explainQueryPlan(withFixedLimit(read)));
    }
  });

  it('when the catalogue source looks an area up by city, then its LIMIT 1 is cast too', async () => {
    const statements = await statementsOf(() =>
      coveringAreaIds(db, 'ins_seed', { countryCode: 'NL', postalCode: '', city: 'Utrecht' }),
    );

    expect(statements.filter((text) => / limit /.test(text))).toEqual([
      expect.stringMatching(/ limit cast\(\? as integer\)$/),
    ]);
  });
});

/** When the seeded rows were created: request, quote and project n is n seconds older. */
const seededAt = '2026-11-25T10:00:00.000Z';

/**
 * One instance with 1,000 customers, and 1,000 each of addresses, requests (five for each of `cus_1` …
 * `cus_200`), quotes, projects and gathering tasks (one in a hundred queued, one running), inserted as SQL
 * so the store's statements are first prepared by the tests.
 */
function seed(handle: SqliteDb): void {
  const at = Date.parse(seededAt);
  handle.$client.exec(`
    INSERT INTO instances (id, name, code, created_at, updated_at) VALUES ('ins_seed', 'Seed', 'SEED', ${at}, ${at});
    INSERT INTO users (id, instance_id, email, first_name, last_name, created_at, updated_at)
      VALUES ('usr_seed', 'ins_seed', 'seed@example.com', 'Seed', 'User', ${at}, ${at});
    INSERT INTO price_plans (id, instance_id, name, is_default, mrc_markup_bp, nrc_markup_bp, created_at, updated_at)
      VALUES ('ppl_seed', 'ins_seed', 'Standard', 1, 0, 0, ${at}, ${at});
    INSERT INTO sources (id, instance_id, key, name, network, type, country_codes, created_at, updated_at)
      VALUES ('src_seed', 'ins_seed', 'seed', 'Seed', 'KPN', 'catalog', '["NL"]', ${at}, ${at});
    CREATE TEMP TABLE n AS
      WITH RECURSIVE series(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM series WHERE n < 1000) SELECT n FROM series;
    INSERT INTO customers (id, instance_id, auto_sequence, name, name_folded, price_plan_id, account_manager_user_id,
                           created_at, updated_at)
      SELECT 'cus_' || n, 'ins_seed', n, 'Acme ' || n, 'acme ' || n, 'ppl_seed', 'usr_seed', ${at}, ${at} FROM n;
    INSERT INTO addresses (id, instance_id, input_kind, street, city, house_number, house_number_addition,
                           postal_code, country_code, continent_code, created_at, updated_at)
      SELECT 'adr_' || n, 'ins_seed', 'fields', 'Straat', 'Utrecht', n, '', '3511AA', 'NL', 'EU', ${at}, ${at} FROM n;
    INSERT INTO availability_requests (id, instance_id, address_id, customer_id, price_plan_id, filters, status,
                                       sources_total, created_at, updated_at)
      SELECT printf('avr_%06d', n), 'ins_seed', 'adr_' || n, 'cus_' || (1 + n % 200), 'ppl_seed',
             '{"bandwidths":[],"networks":[],"contractTerms":[],"connectionTypes":[],"technologyTypes":[]}',
             'pending', 1, ${at} - n * 1000, ${at} FROM n;
    INSERT INTO quotes (id, instance_id, customer_id, name, year, sequence, quote_number, currency, validity_days,
                        expiration_date, created_at, updated_at)
      SELECT printf('quo_%06d', n), 'ins_seed', 'cus_' || (1 + n % 200), 'Quote ' || n, 2026, n,
             printf('2026-%05d-SEED', n), 'EUR', 30, '2026-12-25', ${at} - n * 1000, ${at} FROM n;
    INSERT INTO projects (id, instance_id, customer_id, name, created_at, updated_at)
      SELECT printf('prj_%06d', n), 'ins_seed', 'cus_' || (1 + n % 200), 'Project ' || n, ${at} - n * 1000, ${at} FROM n;
    INSERT INTO gathering_tasks (id, instance_id, availability_request_id, source_id, status, attempts, available_at,
                                 lease_owner, lease_expires_at, created_at, updated_at)
      SELECT n, 'ins_seed', printf('avr_%06d', n), 'src_seed',
             CASE WHEN n % 100 = 0 THEN 'queued' WHEN n % 100 = 1 THEN 'running' ELSE 'succeeded' END,
             CASE WHEN n % 100 = 0 THEN 0 ELSE 1 END, ${at} - n * 1000,
             CASE WHEN n % 100 = 1 THEN 'worker-seed' END,
             CASE WHEN n % 100 = 1 THEN ${at} + 3600000 END, ${at}, ${at} FROM n;
    DROP TABLE n;
  `);
}

/**
 * The SQL of the statements the store prepares on its connection while `act` runs. better-sqlite3 is
 * watched, not replaced: every statement is prepared and run as usual.
 */
async function statementsOf(act: () => Promise<unknown>): Promise<string[]> {
  const client = db.$client;
  const prepare = client.prepare;
  const statements: string[] = [];
  client.prepare = function (this: typeof client, source: string) {
    statements.push(source);
    return prepare.call(this, source);
  } as typeof prepare;
  try {
    await act();
  } finally {
    client.prepare = prepare;
  }
  return statements;
}

/**
 * `statement` with its cast LIMIT written as the number 25: what the planner sees of a bare `LIMIT ?` bound
 * to 25, and plans with.
 */
function withFixedLimit(statement: string): string {
  return statement.replace(' limit cast(? as integer)', ' limit 25');
}

/** SQLite's `EXPLAIN QUERY PLAN` of `statement`, one line per step (parameters bound as null). */
function explainQueryPlan(statement: string): string {
  const explained = db.$client.prepare(`EXPLAIN QUERY PLAN ${statement}`);
  const parameters = Array.from({ length: (statement.match(/\?/g) ?? []).length }, () => null);
  return (explained.all(...parameters) as { detail: string }[]).map((step) => step.detail).join('\n');
}
