import { eq } from 'drizzle-orm';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type PostgresDb, postgresDb } from '../../../src/db/postgres/client.js';
import { migratePostgres } from '../../../src/db/postgres/migrate.js';
import { openPostgresPool } from '../../../src/db/postgres/pool.js';
import * as pricePlanQueries from '../../../src/db/postgres/queries/price-plans.js';
import { insertApplication, insertInstance } from '../../../src/db/postgres/queries/tenancy.js';
import { customers, pricePlanRules, pricePlans } from '../../../src/db/postgres/schema/index.js';
import { postgresUnavailable } from '../../../src/db/postgres/unavailable.js';
import type { NewPricePlan, PricePlanWithRules } from '../../../src/db/rows.js';
import { openSqliteStore } from '../../../src/db/sqlite/store.js';
import { bindOperations, type Store, type StoreOperations } from '../../../src/db/store.js';
import { createLogger } from '../../../src/logger.js';
import { createTestDatabase } from '../../helpers/postgres-server.js';

let database: { url: string; drop(): Promise<void> };
let pool: pg.Pool;
let db: PostgresDb;
/** The module bound as the store binds it, typed by the SQLite twin's signatures. */
let store: Pick<StoreOperations, keyof typeof pricePlanQueries>;
let sqlite: Store;

const now = new Date('2026-11-25T10:00:00.000Z');
const later = new Date('2026-11-25T11:00:00.000Z');

const plan = (name: string, isDefault = false, rules: NewPricePlan['rules'] = []): NewPricePlan => ({
  name,
  isDefault,
  mrcMarkupBp: 2500,
  nrcMarkupBp: 1000,
  rules,
});

const rules: NewPricePlan['rules'] = [
  { network: 'KPN', technologyType: null, connectionType: null, mrcMarkupBp: 3000, nrcMarkupBp: 0 },
  { network: null, technologyType: 'FIBER', connectionType: 'EVPL', mrcMarkupBp: 100, nrcMarkupBp: 200 },
];

/** A plan list without ids, to compare the two stores. */
const withoutIds = (plans: PricePlanWithRules[]) => plans.map(({ id: _, instanceId: __, ...rest }) => rest);

beforeAll(async () => {
  database = await createTestDatabase(inject('postgresAdminUrl'));
  pool = openPostgresPool(database.url, 10);
  // As the store does (it logs them): the database's drop at the end may end a connection still closing.
  pool.on('error', () => undefined);
  await migratePostgres(pool);
  db = postgresDb(pool);
  store = bindOperations(db, pricePlanQueries, postgresUnavailable);
  sqlite = await openSqliteStore(':memory:', { logger: createLogger('silent') });
});

afterAll(async () => {
  await sqlite?.close();
  await pool?.end();
  await database?.drop();
});

async function newInstance(code: string) {
  return (await insertInstance(db, { name: code, code, now })).id;
}

describe('PostgreSQL price-plan queries', () => {
  it('when plans are inserted, then they are returned, listed default first then by byte order, as SQLite does', async () => {
    const instanceId = await newInstance('ACM');
    const sqliteInstanceId = (await sqlite.insertInstance({ name: 'ACM', code: 'ACM', now })).id;
    const input = [plan('beta'), plan('Zeta', false, rules), plan('Standard', true), plan('alpha')];

    const created = await store.insertPricePlans(instanceId, input, now);

    expect(created).toEqual(
      input.map((p) => ({
        id: expect.stringMatching(/^ppl_/),
        instanceId,
        name: p.name,
        isDefault: p.isDefault,
        mrcMarkupBp: 2500,
        nrcMarkupBp: 1000,
        createdAt: now,
        updatedAt: now,
        rules: p.rules,
      })),
    );
    const listed = await store.listPricePlans(instanceId);
    expect(listed.map((p) => p.name)).toEqual(['Standard', 'Zeta', 'alpha', 'beta']);
    expect(listed[1]?.rules).toEqual(rules);
    await sqlite.insertPricePlans(sqliteInstanceId, input, now);
    expect(withoutIds(listed)).toEqual(withoutIds(await sqlite.listPricePlans(sqliteInstanceId)));

    const zeta = created[1];
    expect(await store.findPricePlan(instanceId, zeta?.id ?? '')).toEqual({ ...zeta, rules: undefined });
    expect(await store.findPricePlan(await newInstance('OTH'), zeta?.id ?? '')).toBeUndefined();
    expect(await store.findDefaultPricePlan(instanceId)).toEqual({ ...created[2], rules: undefined });
    expect(await store.loadPricingPlan(zeta?.id ?? '')).toEqual(zeta);
    expect(await store.loadPricingPlan('ppl_missing')).toBeUndefined();
    expect(await store.listPricePlans('ins_missing')).toEqual([]);
  });

  it('when a new default is inserted, then the previous default is cleared with the change time', async () => {
    const instanceId = await newInstance('DEF');
    const [first] = await store.insertPricePlans(instanceId, [plan('First', true)], now);
    const [second] = await store.insertPricePlans(instanceId, [plan('Second', true)], later);

    expect(await store.findDefaultPricePlan(instanceId)).toEqual({ ...second, rules: undefined });
    expect(await store.findPricePlan(instanceId, first?.id ?? '')).toEqual({
      ...first,
      rules: undefined,
      isDefault: false,
      updatedAt: later,
    });
  });

  it('when one batch has several defaults, then the last stays default and the result echoes the input', async () => {
    const instanceId = await newInstance('TWO');
    const sqliteInstanceId = (await sqlite.insertInstance({ name: 'TWO', code: 'TWO', now })).id;
    const input = [plan('A', true), plan('B'), plan('C', true)];

    const created = await store.insertPricePlans(instanceId, input, now);

    expect(created.map((p) => p.isDefault)).toEqual([true, false, true]);
    const listed = await store.listPricePlans(instanceId);
    expect(listed.map((p) => [p.name, p.isDefault])).toEqual([
      ['C', true],
      ['A', false],
      ['B', false],
    ]);
    await sqlite.insertPricePlans(sqliteInstanceId, input, now);
    expect(withoutIds(listed)).toEqual(withoutIds(await sqlite.listPricePlans(sqliteInstanceId)));
  });

  it('when a plan of a batch has a taken name, then nothing is written and the default stays', async () => {
    const instanceId = await newInstance('BAD');
    const [standard] = await store.insertPricePlans(instanceId, [plan('Standard', true)], now);
    const plansBefore = await db.$count(pricePlans);
    const rulesBefore = await db.$count(pricePlanRules);

    await expect(
      store.insertPricePlans(instanceId, [plan('New', true, rules), plan('Standard')], later),
    ).rejects.toThrow();

    expect(await db.$count(pricePlans)).toBe(plansBefore);
    expect(await db.$count(pricePlanRules)).toBe(rulesBefore);
    expect(await store.findDefaultPricePlan(instanceId)).toEqual({ ...standard, rules: undefined });
  });

  it('when nothing is inserted, then nothing is returned', async () => {
    expect(await store.insertPricePlans(await newInstance('NIL'), [], now)).toEqual([]);
  });

  it('when 10 defaults are inserted at once, then the instance ends with exactly one default', async () => {
    const instanceId = await newInstance('RAC');
    await store.insertPricePlans(instanceId, [plan('Initial', true)], now);

    await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        store.insertPricePlans(instanceId, [plan(`Plan ${i}`, true)], later),
      ),
    );

    const defaults = (await store.listPricePlans(instanceId)).filter((p) => p.isDefault);
    expect(defaults).toHaveLength(1);
    expect(await store.findDefaultPricePlan(instanceId)).toEqual({ ...defaults[0], rules: undefined });
  });

  it('when a customer’s plan is set, then only a customer of that instance changes', async () => {
    const instanceId = await newInstance('CUS');
    const [standard, special] = await store.insertPricePlans(
      instanceId,
      [plan('Standard', true), plan('Special')],
      now,
    );
    const { userId } = await insertApplication(db, {
      instanceId,
      name: 'Manager',
      roles: ['instance_admin'],
      clientId: 'manager',
      clientSecretHash: 'x',
      now,
    });
    await db.insert(customers).values({
      id: 'cus_1',
      instanceId,
      autoSequence: 1,
      name: 'Customer',
      nameFolded: 'customer',
      pricePlanId: standard?.id ?? '',
      accountManagerUserId: userId,
      createdAt: now,
      updatedAt: now,
    });
    const input = { instanceId, customerId: 'cus_1', pricePlanId: special?.id ?? '', now: later };

    expect(await store.setCustomerPricePlan(input)).toBe(true);
    expect(await store.setCustomerPricePlan({ ...input, customerId: 'cus_missing' })).toBe(false);
    expect(await store.setCustomerPricePlan({ ...input, instanceId: await newInstance('CU2') })).toBe(false);

    const [row] = await db.select().from(customers).where(eq(customers.id, 'cus_1'));
    expect([row?.pricePlanId, row?.updatedAt]).toEqual([special?.id, later]);
  });
});
