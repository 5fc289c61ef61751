import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { PostgresDb } from '../../../src/db/postgres/client.js';
import { postgresDb } from '../../../src/db/postgres/client.js';
import { migratePostgres } from '../../../src/db/postgres/migrate.js';
import { openPostgresPool } from '../../../src/db/postgres/pool.js';
import * as postgres from '../../../src/db/postgres/queries/quotes.js';
import * as pgSchema from '../../../src/db/postgres/schema/index.js';
import type { NewQuote, NewQuoteLine, QuoteRecord, QuoteRow } from '../../../src/db/rows.js';
import { closeDatabase, openDatabase, type SqliteDb } from '../../../src/db/sqlite/client.js';
import * as sqlite from '../../../src/db/sqlite/queries/quotes.js';
import * as sqliteSchema from '../../../src/db/sqlite/schema/index.js';
import { createLinguisticDatabase } from '../../helpers/postgres-server.js';
import { instanceProductLine } from '../quote-line-fixtures.js';

const at = new Date('2026-11-25T10:00:00.000Z');
const later = new Date('2026-11-26T08:30:00.000Z');
const stamps = { createdAt: at, updatedAt: at };

const instanceRows = [
  { id: 'ins_1', name: 'Acme Networks', code: 'ACM', ...stamps },
  { id: 'ins_2', name: 'Other', code: 'OTH', ...stamps },
  { id: 'ins_list', name: 'Lister', code: 'LST', ...stamps },
  { id: 'ins_race', name: 'Racer', code: 'RACE', ...stamps },
];
const userRows = instanceRows.map((instance) => ({
  id: `usr_${instance.code}`,
  instanceId: instance.id,
  email: `${instance.code}@example.com`,
  firstName: 'Q',
  lastName: 'Writer',
  roles: ['instance_admin'],
  ...stamps,
}));
const planRows = instanceRows.map((instance) => ({
  id: `ppl_${instance.code}`,
  instanceId: instance.id,
  name: 'Standard',
  mrcMarkupBp: 0,
  nrcMarkupBp: 0,
  ...stamps,
}));
const customerRows = instanceRows.map((instance, index) => ({
  id: `cus_${instance.code}`,
  instanceId: instance.id,
  autoSequence: index + 1,
  name: `Customer of ${instance.code}`,
  nameFolded: `customer of ${instance.code.toLowerCase()}`,
  pricePlanId: `ppl_${instance.code}`,
  accountManagerUserId: `usr_${instance.code}`,
  ...stamps,
}));

/** Quotes listed newest first with ties on the creation time broken on the id, bytewise (as SQLite). */
const listedQuoteIds = ['quo_z', 'quo_a', 'quo_B', 'quo_-', 'quo_0'];
const listQuoteRows = listedQuoteIds.map((id, index) => {
  const createdAt = new Date(at.getTime() + (id === 'quo_z' ? 1 : id === 'quo_0' ? -1 : 0));
  return {
    id,
    instanceId: 'ins_list',
    customerId: 'cus_LST',
    createdByUserId: null,
    name: `Quote ${id}`,
    referenceNumber: null,
    year: 2026,
    sequence: index + 1,
    quoteNumber: `2026-000${index + 1}-LST`,
    currency: 'EUR',
    validityDays: 30,
    expirationDate: '2026-12-25',
    createdAt,
    updatedAt: createdAt,
  };
});

const line = (productId: string, name = `Product ${productId}`): NewQuoteLine =>
  instanceProductLine(productId, name, { mrcMinor: 1000, nrcMinor: 5000 });
const listLineRows = [line('p2'), line('p1')].map((fields, index) => ({
  ...fields,
  id: `qli_${index}`,
  instanceId: 'ins_list',
  quoteId: 'quo_B',
  position: index + 1,
  createdAt: at,
}));

const source = {
  id: 'src_1',
  instanceId: 'ins_1',
  key: 'kpn',
  name: 'KPN',
  network: 'KPN',
  type: 'catalog' as const,
  countryCodes: ['NL'],
  ...stamps,
};
const address = {
  id: 'adr_1',
  instanceId: 'ins_1',
  inputKind: 'fields' as const,
  street: 'Damrak',
  city: 'Amsterdam',
  houseNumber: '1',
  houseNumberAddition: '',
  postalCode: '1012LG',
  countryCode: 'NL',
  continentCode: 'EU',
  latitude: 52.37,
  longitude: 4.89,
  coordinatesPrecision: 'address' as const,
  ...stamps,
};
const request = {
  id: 'avr_1',
  instanceId: 'ins_1',
  addressId: 'adr_1',
  pricePlanId: 'ppl_ACM',
  filters: { bandwidths: [], networks: [], contractTerms: [], connectionTypes: [], technologyTypes: [] },
  status: 'completed' as const,
  sourcesTotal: 1,
  sourcesFinished: 1,
  ...stamps,
};
const task = {
  id: 7,
  instanceId: 'ins_1',
  availabilityRequestId: 'avr_1',
  sourceId: 'src_1',
  status: 'succeeded' as const,
  availableAt: at,
  ...stamps,
};
const product = (id: string, instanceId: string) => ({
  id,
  instanceId,
  availabilityRequestId: 'avr_1',
  gatheringTaskId: 7,
  sourceId: 'src_1',
  network: 'KPN',
  technologyType: 'FTTH',
  connectionType: 'fiber',
  downloadKbps: 1_000_000,
  uploadKbps: 1_000_000,
  contractTermMonths: 36,
  purchaseMrcMinor: 10_000,
  purchaseNrcMinor: 0,
  mrcMinor: 12_500,
  nrcMinor: 0,
  currency: 'EUR',
  orderTerms: null,
  createdAt: at,
});
// A product row of another instance (inconsistent on purpose: the query must filter on the instance).
const productRows = [product('prd_1', 'ins_1'), product('prd_2', 'ins_1'), product('prd_other', 'ins_2')];

const newQuote = (instanceId: string, code: string, lines: NewQuoteLine[], now = at): NewQuote => ({
  instanceId,
  instanceCode: code,
  customerId: `cus_${code}`,
  userId: `usr_${code}`,
  name: 'Office link',
  referenceNumber: 'PO-1',
  currency: 'EUR',
  validityDays: 30,
  expirationDate: '2026-12-25',
  lines,
  now,
});

/** A record with the ids the stores generate blanked, to compare the two stores' records. */
const withoutIds = (record: QuoteRecord | undefined) =>
  record && {
    ...record,
    quote: { ...record.quote, id: '' },
    lines: record.lines.map((row) => ({ ...row, id: '', quoteId: '' })),
  };

describe('PostgreSQL quotes queries', () => {
  let database: { url: string; drop(): Promise<void> };
  let pool: pg.Pool;
  let db: PostgresDb;
  let lite: SqliteDb;

  beforeAll(async () => {
    database = await createLinguisticDatabase(inject('postgresAdminUrl'));
    pool = openPostgresPool(database.url, 10);
    await migratePostgres(pool);
    db = postgresDb(pool);
    lite = openDatabase(':memory:');
    for (const [target, schema] of [
      [db, pgSchema],
      [lite, sqliteSchema],
    ] as const) {
      const insert = (table: unknown, rows: object | object[]) =>
        // biome-ignore lint/suspicious/noExplicitAny: one fixture for two dialects' tables
        (target as any).insert(table).values(rows);
      await insert(schema.instances, instanceRows);
      await insert(schema.users, userRows);
      await insert(schema.pricePlans, planRows);
      await insert(schema.customers, customerRows);
      await insert(schema.quotes, listQuoteRows);
      await insert(schema.quoteLines, listLineRows);
      await insert(schema.sources, source);
      await insert(schema.addresses, address);
      await insert(schema.availabilityRequests, request);
      await insert(schema.gatheringTasks, task);
      await insert(schema.availabilityRequestProducts, productRows);
    }
  });

  afterAll(async () => {
    closeDatabase(lite);
    await pool?.end();
    await database?.drop();
  });

  describe('creating quotes', () => {
    let first: QuoteRow;

    it('when creating a quote, then it is numbered 0001 of the year and its lines skip repeated products', async () => {
      const input = newQuote('ins_1', 'ACM', [line('p1'), line('p2'), line('p1', 'Repeated')]);
      first = await postgres.insertQuote(db, input);
      const twin = await sqlite.insertQuote(lite, input);
      expect(first).toEqual({ ...twin, id: first.id });
      expect(first).toMatchObject({ year: 2026, sequence: 1, quoteNumber: '2026-0001-ACM' });
      const record = await postgres.findQuote(db, 'ins_1', first.id);
      expect(record?.lines.map((row) => [row.productId, row.name, row.position])).toEqual([
        ['p1', 'Product p1', 1],
        ['p2', 'Product p2', 2],
      ]);
      expect(withoutIds(record)).toEqual(withoutIds(await sqlite.findQuote(lite, 'ins_1', twin.id)));
    });

    it('when creating more, then numbers continue per instance and restart with a new year', async () => {
      expect((await postgres.insertQuote(db, newQuote('ins_1', 'ACM', []))).quoteNumber).toBe(
        '2026-0002-ACM',
      );
      expect((await postgres.insertQuote(db, newQuote('ins_2', 'OTH', []))).quoteNumber).toBe(
        '2026-0001-OTH',
      );
      const nextYear = newQuote('ins_1', 'ACM', [], new Date('2027-01-01T00:00:00.000Z'));
      expect(await postgres.insertQuote(db, nextYear)).toMatchObject({
        year: 2027,
        quoteNumber: '2027-0001-ACM',
      });
      expect(await postgres.countQuotes(db, 'ins_1')).toBe(3);
    });

    it('when a line cannot be stored, then neither is the quote, and the number is not used up', async () => {
      const broken = { ...line('p9'), name: null as unknown as string };
      await expect(
        postgres.insertQuote(db, newQuote('ins_1', 'ACM', [line('p8'), broken])),
      ).rejects.toThrow();
      expect(await postgres.countQuotes(db, 'ins_1')).toBe(3);
      expect((await postgres.insertQuote(db, newQuote('ins_1', 'ACM', []))).quoteNumber).toBe(
        '2026-0003-ACM',
      );
    });

    it('when 100 quotes are created at once through a pool of 10, then they are numbered 0001..0100', async () => {
      const created = await Promise.all(
        Array.from({ length: 100 }, (_, i) =>
          postgres.insertQuote(db, newQuote('ins_race', 'RACE', [line(`p${i}`)])),
        ),
      );
      const numbers = created.map((row) => row.quoteNumber).sort();
      expect(numbers).toEqual(
        Array.from({ length: 100 }, (_, i) => `2026-${String(i + 1).padStart(4, '0')}-RACE`),
      );
      const stored = await pool.query(
        "SELECT count(*)::int AS n, count(DISTINCT quote_number)::int AS d, max(sequence) AS m FROM quotes WHERE instance_id = 'ins_race'",
      );
      expect(stored.rows[0]).toEqual({ n: 100, d: 100, m: 100 });
    });

    it('when adding lines, then known products are skipped, positions continue and the quote is touched', async () => {
      const lines = [line('p2'), line('p3'), line('p3', 'Again'), line('p4')];
      const input = { instanceId: 'ins_1', quoteId: first.id, lines, now: later };
      expect(await postgres.addQuoteLines(db, input)).toBe(2);
      const record = await postgres.findQuote(db, 'ins_1', first.id);
      expect(record?.quote.updatedAt).toEqual(later);
      expect(record?.lines.map((row) => [row.productId, row.position, row.createdAt])).toEqual([
        ['p1', 1, at],
        ['p2', 2, at],
        ['p3', 3, later],
        ['p4', 4, later],
      ]);
      const [twin] = await sqlite.sliceQuotes(lite, 'ins_1', { after: null, limit: 1 });
      const twinId = twin?.quote.id ?? '';
      expect(await sqlite.addQuoteLines(lite, { ...input, quoteId: twinId })).toBe(2);
      expect(withoutIds(record)).toEqual(withoutIds(await sqlite.findQuote(lite, 'ins_1', twinId)));
    });

    it('when adding only products the quote has, then nothing is added and the quote is not touched', async () => {
      const input = { instanceId: 'ins_1', quoteId: first.id, lines: [line('p1')], now: new Date() };
      expect(await postgres.addQuoteLines(db, input)).toBe(0);
      expect(await postgres.addQuoteLines(db, { ...input, lines: [] })).toBe(0);
      expect((await postgres.findQuote(db, 'ins_1', first.id))?.quote.updatedAt).toEqual(later);
    });

    it('when 20 additions to one quote run at once, then every product is added once at positions 1..21', async () => {
      const quote = await postgres.insertQuote(db, newQuote('ins_2', 'OTH', []));
      const added = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          postgres.addQuoteLines(db, {
            instanceId: 'ins_2',
            quoteId: quote.id,
            lines: [line('shared'), line(`own${i}`)],
            now: at,
          }),
        ),
      );
      expect(added.reduce((sum: number, n) => sum + (n === 'quote_ordered' ? 0 : n), 0)).toBe(21);
      const record = await postgres.findQuote(db, 'ins_2', quote.id);
      expect(record?.lines.map((row) => row.position)).toEqual(Array.from({ length: 21 }, (_, i) => i + 1));
      expect(new Set(record?.lines.map((row) => row.productId)).size).toBe(21);
    });
  });

  describe('reading quotes', () => {
    it('when finding a quote, then it nests instance, customer and lines in order', async () => {
      expect(await postgres.findQuote(db, 'ins_list', 'quo_B')).toEqual({
        quote: listQuoteRows.find((row) => row.id === 'quo_B'),
        instance: { id: 'ins_list', name: 'Lister' },
        customer: { id: 'cus_LST', name: 'Customer of LST' },
        lines: listLineRows,
      });
      expect(await postgres.findQuote(db, 'ins_list', 'quo_B')).toEqual(
        await sqlite.findQuote(lite, 'ins_list', 'quo_B'),
      );
    });

    it("when finding another instance's or an unknown quote, then nothing is found", async () => {
      expect(await postgres.findQuote(db, 'ins_1', 'quo_B')).toBeUndefined();
      expect(await postgres.findQuote(db, 'ins_list', 'quo_none')).toBeUndefined();
    });

    it('when slicing newest first, then ties on the time break on the id bytewise, as SQLite', async () => {
      const walked: string[] = [];
      let after: { createdAt: Date; id: string } | null = null;
      for (;;) {
        const query = { after, limit: 2 };
        const slice = await postgres.sliceQuotes(db, 'ins_list', query);
        expect(slice).toEqual(await sqlite.sliceQuotes(lite, 'ins_list', query));
        const last = slice.at(-1)?.quote;
        if (!last) break;
        walked.push(...slice.map((record) => record.quote.id));
        after = { createdAt: last.createdAt, id: last.id };
      }
      expect(walked).toEqual(listedQuoteIds);
      expect(await postgres.countQuotes(db, 'ins_list')).toBe(5);
    });

    it('when slicing after a position no quote holds, then the slice starts at the next older one', async () => {
      const query = { after: { createdAt: at, id: 'quo_A' }, limit: 2 };
      const slice = await postgres.sliceQuotes(db, 'ins_list', query);
      expect(slice.map((record) => record.quote.id)).toEqual(['quo_-', 'quo_0']);
      expect(slice).toEqual(await sqlite.sliceQuotes(lite, 'ins_list', query));
    });

    it('when looking up request products, then only those of the instance come back', async () => {
      const found = await postgres.findRequestProducts(db, 'ins_1', [
        'prd_2',
        'prd_other',
        'prd_none',
        'prd_1',
      ]);
      expect(found.sort((a, b) => (a.id < b.id ? -1 : 1))).toEqual([productRows[0], productRows[1]]);
      expect(await postgres.findRequestProducts(db, 'ins_1', [])).toEqual([]);
      expect(await sqlite.findRequestProducts(lite, 'ins_1', ['prd_other'])).toEqual([]);
    });
  });
});
