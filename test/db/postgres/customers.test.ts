import type { PgTable } from 'drizzle-orm/pg-core';
import type { SQLiteTable } from 'drizzle-orm/sqlite-core';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PostgresDb } from '../../../src/db/postgres/client.js';
import * as postgres from '../../../src/db/postgres/queries/customers.js';
import * as pgSchema from '../../../src/db/postgres/schema/index.js';
import type { CustomerRecord, NewCustomer } from '../../../src/db/rows.js';
import type { SqliteDb } from '../../../src/db/sqlite/client.js';
import * as sqlite from '../../../src/db/sqlite/queries/customers.js';
import * as sqliteSchema from '../../../src/db/sqlite/schema/index.js';
import { statementsOf } from '../../helpers/store.js';
import { openTwinStores, type TwinStores } from './twin-stores.js';

const at = new Date('2026-11-25T10:00:00.000Z');
const stamps = { createdAt: at, updatedAt: at };

const instanceRows = ['ins_1', 'ins_2', 'ins_seq', 'ins_bulk'].map((id) => ({
  id,
  name: `Instance ${id}`,
  code: id.toUpperCase(),
  ...stamps,
}));
const userRow = {
  id: 'usr_1',
  instanceId: 'ins_1',
  email: 'am@example.com',
  firstName: 'Ada',
  lastName: 'Manager',
  roles: ['instance_admin'],
  ...stamps,
};
const planRow = {
  id: 'ppl_1',
  instanceId: 'ins_1',
  name: 'Standard',
  mrcMarkupBp: 2500,
  nrcMarkupBp: 0,
  ...stamps,
};

/** Folded names and ids in SQLite's (bytewise) list order; linguistic order would differ in most places. */
const listed: [nameFolded: string, id: string][] = [
  ['100 fiber', 'cus_01'],
  ['100% fiber', 'cus_02'],
  ['a b', 'cus_03'],
  ['a-c', 'cus_04'],
  ['a_b', 'cus_05'],
  ['ab', 'cus_06'],
  ['acme', 'cus_-1'],
  ['acme', 'cus_B'],
  ['acme', 'cus_a'],
  ['axb', 'cus_07'],
  ['back\\slash', 'cus_08'],
  ['backslash', 'cus_09'],
  ['zeta', 'cus_10'],
  ['éclair', 'cus_11'],
];

const customerFields = {
  externalId: null,
  legalName: null,
  businessRegistrationNumber: null,
  website: null,
  interconnected: false,
  preferredCurrency: null,
  monthlyAvailabilityRequestLimit: null,
  internalNotes: null,
  agentId: null,
  networkNameOverride: null,
  customerRegion: null,
  pricePlanId: 'ppl_1',
  accountManagerUserId: 'usr_1',
};

// Inserted in reverse so that neither store returns insertion order by accident.
const customerRows = [
  ...[...listed].reverse().map(([nameFolded, id], index) => ({
    ...customerFields,
    id,
    instanceId: 'ins_1',
    autoSequence: index + 1,
    name: nameFolded.toUpperCase(),
    nameFolded,
    ...stamps,
  })),
  {
    ...customerFields,
    id: 'cus_other',
    instanceId: 'ins_2',
    autoSequence: 1,
    name: 'Acme',
    nameFolded: 'acme',
    ...stamps,
  },
];

const details = {
  name: 'Acme Billing',
  email: 'billing@acme.example',
  street: 'Damrak',
  houseNumber: '1',
  houseNumberAddition: null,
  postalCode: '1012LG',
  city: 'Amsterdam',
  region: null,
  countryCode: 'NL',
  vatNumber: 'NL001',
  bankAccountNumber: null,
  applyVat: true,
  paymentTermDays: 30,
};

const projectRows = [
  { id: 'prj_B', instanceId: 'ins_1', customerId: 'cus_a', name: 'B', ...stamps },
  { id: 'prj_a', instanceId: 'ins_1', customerId: 'cus_B', name: 'a', ...stamps },
  { id: 'prj_-', instanceId: 'ins_1', customerId: 'cus_a', name: '-', ...stamps },
  {
    id: 'prj_0',
    instanceId: 'ins_1',
    customerId: 'cus_a',
    name: 'older',
    createdAt: new Date(at.getTime() - 1),
    updatedAt: at,
  },
  { id: 'prj_x', instanceId: 'ins_2', customerId: 'cus_other', name: 'other', ...stamps },
];

/** Each table's rows, inserted in this order into both stores. */
const seedRows: [PgTable, SQLiteTable, object[]][] = [
  [pgSchema.instances, sqliteSchema.instances, instanceRows],
  [pgSchema.users, sqliteSchema.users, [userRow]],
  [pgSchema.pricePlans, sqliteSchema.pricePlans, [planRow]],
  [pgSchema.customers, sqliteSchema.customers, customerRows],
  [
    pgSchema.customerFinancialDetails,
    sqliteSchema.customerFinancialDetails,
    [{ ...details, customerId: 'cus_B' }],
  ],
  [pgSchema.projects, sqliteSchema.projects, projectRows],
];

const newCustomer = (name: string): NewCustomer => ({
  ...customerFields,
  name,
  nameFolded: name.toLowerCase(),
  financialDetails: null,
});

const ids = (records: CustomerRecord[]) => records.map((record) => record.customer.id);

describe('PostgreSQL customers and projects queries', () => {
  let stores: TwinStores;
  let pool: pg.Pool;
  let db: PostgresDb;
  let lite: SqliteDb;

  beforeAll(async () => {
    stores = await openTwinStores(10, async (twins) => {
      for (const [pgTable, sqliteTable, rows] of seedRows) {
        await twins.db.insert(pgTable).values(rows as never);
        await twins.lite.insert(sqliteTable).values(rows as never);
      }
    });
    ({ pool, db, lite } = stores);
  });

  afterAll(async () => {
    await stores?.close();
  });

  describe('listing customers', () => {
    it('when listing all, then the order is folded name then id, bytewise, as SQLite', async () => {
      const page = await postgres.listCustomersPage(db, 'ins_1', { nameFolded: null, offset: 0, limit: 100 });
      expect(ids(page)).toEqual(listed.map(([, id]) => id));
      expect(page).toEqual(
        await sqlite.listCustomersPage(lite, 'ins_1', { nameFolded: null, offset: 0, limit: 100 }),
      );
    });

    it('when paging with an offset, then the page is that window of the list', async () => {
      const query = { nameFolded: null, offset: 5, limit: 4 };
      const page = await postgres.listCustomersPage(db, 'ins_1', query);
      expect(ids(page)).toEqual(['cus_06', 'cus_-1', 'cus_B', 'cus_a']);
      expect(page).toEqual(await sqlite.listCustomersPage(lite, 'ins_1', query));
    });

    it('when filtering by name, then %, _ and \\ match literally and counts agree with SQLite', async () => {
      const expected: Record<string, string[]> = {
        '%': ['cus_02'],
        _: ['cus_05'],
        '\\': ['cus_08'],
        '0% f': ['cus_02'],
        acme: ['cus_-1', 'cus_B', 'cus_a'],
        b: ['cus_01', 'cus_02', 'cus_03', 'cus_05', 'cus_06', 'cus_07', 'cus_08', 'cus_09'],
        é: ['cus_11'],
        ACME: [],
        nothing: [],
      };
      for (const [search, want] of Object.entries(expected)) {
        const query = { nameFolded: search, offset: 0, limit: 100 };
        const page = await postgres.listCustomersPage(db, 'ins_1', query);
        expect(ids(page), search).toEqual(want);
        expect(page, search).toEqual(await sqlite.listCustomersPage(lite, 'ins_1', query));
        expect(await postgres.countCustomers(db, 'ins_1', search), search).toBe(want.length);
        expect(await sqlite.countCustomers(lite, 'ins_1', search), search).toBe(want.length);
      }
    });

    it('when the search is null or empty, then every customer of the instance is counted', async () => {
      expect(await postgres.countCustomers(db, 'ins_1', null)).toBe(14);
      expect(await postgres.countCustomers(db, 'ins_1', '')).toBe(14);
      expect(await postgres.countCustomers(db, 'ins_2', null)).toBe(1);
      expect(await postgres.countCustomers(db, 'ins_none', null)).toBe(0);
    });

    it('when slicing after each position in turn, then the slices walk the list as SQLite does', async () => {
      for (const nameFolded of [null, 'a', 'acme']) {
        const walked: CustomerRecord[] = [];
        let after: { nameFolded: string; id: string } | null = null;
        for (;;) {
          const query = { nameFolded, after, limit: 2 };
          const slice = await postgres.sliceCustomers(db, 'ins_1', query);
          expect(slice).toEqual(await sqlite.sliceCustomers(lite, 'ins_1', query));
          const last = slice.at(-1)?.customer;
          if (!last) break;
          walked.push(...slice);
          after = { nameFolded: last.nameFolded, id: last.id };
        }
        expect(walked).toEqual(
          await postgres.listCustomersPage(db, 'ins_1', { nameFolded, offset: 0, limit: 100 }),
        );
      }
    });

    it('when slicing after a position no customer holds, then the slice starts at the next one', async () => {
      const query = { nameFolded: null, after: { nameFolded: 'acme', id: 'cus_C' }, limit: 3 };
      expect(ids(await postgres.sliceCustomers(db, 'ins_1', query))).toEqual(['cus_a', 'cus_07', 'cus_08']);
      expect(ids(await sqlite.sliceCustomers(lite, 'ins_1', query))).toEqual(['cus_a', 'cus_07', 'cus_08']);
    });

    it('when filtering by name, then the query can use the trigram index', async () => {
      await pool.query(`
        INSERT INTO customers (id, instance_id, auto_sequence, name, name_folded, price_plan_id,
          account_manager_user_id, created_at, updated_at)
        SELECT 'cus_bulk' || g, 'ins_bulk', g, md5(g::text), md5(g::text), 'ppl_1', 'usr_1', now(), now()
        FROM generate_series(1, 20000) g`);
      await pool.query('ANALYZE customers');
      const statements = await statementsOf(async () => {
        expect(await postgres.countCustomers(db, 'ins_bulk', 'c4ca4')).toBe(1);
        await postgres.listCustomersPage(db, 'ins_bulk', { nameFolded: 'c4ca4', offset: 0, limit: 10 });
      });
      expect(statements).toHaveLength(2);
      for (const { text, values } of statements) {
        const plan = await pool.query({ text: `EXPLAIN ${text}`, values });
        expect(plan.rows.map((row) => row['QUERY PLAN']).join('\n')).toContain('customers_name_trigram_idx');
      }
    });
  });

  describe('finding customers', () => {
    it('when finding a customer, then its record nests plan, account manager and financial details', async () => {
      const record = await postgres.findCustomer(db, 'ins_1', 'cus_B');
      expect(record).toEqual({
        customer: customerRows.find((row) => row.id === 'cus_B'),
        pricePlan: { id: 'ppl_1', name: 'Standard' },
        accountManager: { id: 'usr_1', firstName: 'Ada', lastName: 'Manager' },
        financialDetails: { ...details, customerId: 'cus_B' },
      });
      expect(record).toEqual(await sqlite.findCustomer(lite, 'ins_1', 'cus_B'));
      const without = await postgres.findCustomer(db, 'ins_1', 'cus_a');
      expect(without?.financialDetails).toBeNull();
      expect(without).toEqual(await sqlite.findCustomer(lite, 'ins_1', 'cus_a'));
    });

    it("when finding another instance's or an unknown id, then nothing is found", async () => {
      expect(await postgres.findCustomer(db, 'ins_1', 'cus_other')).toBeUndefined();
      expect(await postgres.findCustomer(db, 'ins_1', 'cus_none')).toBeUndefined();
    });

    it('when batch loading, then only customers of the instance come back', async () => {
      const wanted = ['cus_a', 'cus_other', 'cus_none', 'cus_B', 'cus_a'];
      const found = await postgres.findCustomers(db, 'ins_1', wanted);
      const byId = (a: CustomerRecord, b: CustomerRecord) => (a.customer.id < b.customer.id ? -1 : 1);
      expect(ids(found.sort(byId))).toEqual(['cus_B', 'cus_a']);
      expect(found).toEqual((await sqlite.findCustomers(lite, 'ins_1', wanted)).sort(byId));
      expect(await postgres.findCustomers(db, 'ins_1', [])).toEqual([]);
    });
  });

  describe('creating customers', () => {
    it('when creating customers, then each gets the next sequence number and the row SQLite would return', async () => {
      const input = { ...newCustomer('Seq One'), financialDetails: details };
      const created = await postgres.insertCustomer(db, 'ins_seq', input, at);
      const twin = await sqlite.insertCustomer(lite, 'ins_seq', input, at);
      expect(created.id).toMatch(/^cus_/);
      expect({ ...created, id: twin.id }).toEqual(twin);
      expect(created.autoSequence).toBe(1);
      expect((await postgres.insertCustomer(db, 'ins_seq', newCustomer('Seq Two'), at)).autoSequence).toBe(2);
      expect(await postgres.findCustomer(db, 'ins_seq', created.id)).toEqual({
        customer: created,
        pricePlan: { id: 'ppl_1', name: 'Standard' },
        accountManager: { id: 'usr_1', firstName: 'Ada', lastName: 'Manager' },
        financialDetails: { ...details, customerId: created.id },
      });
    });

    it('when the financial details cannot be stored, then the customer is not stored either', async () => {
      const before = await postgres.countCustomers(db, 'ins_seq', null);
      const input = {
        ...newCustomer('Broken'),
        financialDetails: { ...details, applyVat: null as unknown as boolean },
      };
      await expect(postgres.insertCustomer(db, 'ins_seq', input, at)).rejects.toThrow();
      expect(await postgres.countCustomers(db, 'ins_seq', null)).toBe(before);
    });

    it('when 50 customers are created at once through the pool, then the sequence numbers are 1..50', async () => {
      await db.insert(pgSchema.instances).values({ id: 'ins_race', name: 'Race', code: 'RACE', ...stamps });
      const created = await Promise.all(
        Array.from({ length: 50 }, (_, i) =>
          postgres.insertCustomer(db, 'ins_race', newCustomer(`Race ${i}`), at),
        ),
      );
      const numbers = created.map((row) => row.autoSequence).sort((a, b) => a - b);
      expect(numbers).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
      expect(await postgres.countCustomers(db, 'ins_race', null)).toBe(50);
    });
  });

  describe('projects', () => {
    it('when listing projects, then oldest come first and ties break on id bytewise, as SQLite', async () => {
      const query = { customerId: null, offset: 0, limit: 10 };
      const page = await postgres.listProjectsPage(db, 'ins_1', query);
      expect(page.rows.map((row) => [row.project.id, row.customerName])).toEqual([
        ['prj_0', 'ACME'],
        ['prj_-', 'ACME'],
        ['prj_B', 'ACME'],
        ['prj_a', 'ACME'],
      ]);
      expect(page.total).toBe(4);
      expect(page).toEqual(await sqlite.listProjectsPage(lite, 'ins_1', query));
    });

    it("when listing one customer's projects with an offset, then the total counts all of them", async () => {
      const query = { customerId: 'cus_a', offset: 1, limit: 1 };
      const page = await postgres.listProjectsPage(db, 'ins_1', query);
      expect(page).toEqual({
        rows: [{ project: projectRows.find((row) => row.id === 'prj_-'), customerName: 'ACME' }],
        total: 3,
      });
      expect(page).toEqual(await sqlite.listProjectsPage(lite, 'ins_1', query));
    });

    it('when batch loading projects of customers, then they come oldest first, of the instance only', async () => {
      const found = await postgres.listProjectsOfCustomers(db, 'ins_1', ['cus_a', 'cus_B', 'cus_other']);
      expect(found.map((row) => row.id)).toEqual(['prj_0', 'prj_-', 'prj_B', 'prj_a']);
      expect(found).toEqual(
        await sqlite.listProjectsOfCustomers(lite, 'ins_1', ['cus_a', 'cus_B', 'cus_other']),
      );
      expect(await postgres.listProjectsOfCustomers(db, 'ins_1', [])).toEqual([]);
    });

    it('when creating a project, then it can be found in its instance only', async () => {
      const input = { instanceId: 'ins_1', customerId: 'cus_01', name: 'New', now: at };
      const created = await postgres.insertProject(db, input);
      const twin = await sqlite.insertProject(lite, input);
      expect(created.id).toMatch(/^prj_/);
      expect({ ...created, id: twin.id }).toEqual(twin);
      expect(await postgres.findProject(db, 'ins_1', created.id)).toEqual(created);
      expect(await postgres.findProject(db, 'ins_2', created.id)).toBeUndefined();
    });
  });
});
