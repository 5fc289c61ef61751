import { asc, count, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pickColumns } from '../../../src/db/shared/row-mapping.js';
import type { SqliteDb } from '../../../src/db/sqlite/client.js';
import { prepareNumber, prepareTableRows } from '../../../src/db/sqlite/prepared-rows.js';
import { addresses, availabilityRequests, pricePlans } from '../../../src/db/sqlite/schema/index.js';
import { openSqliteStore } from '../../../src/db/sqlite/store.js';
import type { Store } from '../../../src/db/store.js';
import { createLogger } from '../../../src/logger.js';
import { tempSqlitePath } from '../../helpers/app.js';
import { sqliteConnection } from '../../helpers/store.js';

// One database for the file: an instance with two price plans and two requests on the first.
const database = tempSqlitePath();
let store: Store;
let db: SqliteDb;
let instanceId: string;

beforeAll(async () => {
  store = await openSqliteStore(database.path, { logger: createLogger('silent') });
  db = sqliteConnection(store);
  instanceId = (await store.insertInstance({ name: 'Rows B.V.', code: 'ROW', now: new Date(0) })).id;
  const terms = { mrcMarkupBp: 0, nrcMarkupBp: 0, rules: [] };
  const [plan] = await store.insertPricePlans(
    instanceId,
    [
      { ...terms, name: 'Standard', isDefault: true },
      { ...terms, name: 'Partner', isDefault: false },
    ],
    new Date(0),
  );
  const base = {
    inputKind: 'fields' as const,
    street: 'Coolsingel',
    city: 'Rotterdam',
    houseNumber: '40',
    houseNumberAddition: '',
    postalCode: '3011AD',
    countryCode: 'NL',
    continentCode: 'EU',
    customerId: null,
    projectId: null,
    pricePlanId: plan?.id ?? '',
    sourceIds: [],
  };
  await store.insertAvailabilityRequests({
    instanceId,
    userId: null,
    now: new Date('2026-11-22T10:00:00.250Z'),
    requests: [
      {
        ...base,
        address: { ...base, latitude: 51.9225, longitude: 4.47917, coordinatesPrecision: 'city' },
        filters: {
          bandwidths: [{ download: 1_000_000, upload: 1_000_000 }],
          networks: ['KPN'],
          contractTerms: [36],
          connectionTypes: [],
          technologyTypes: ['FTTH'],
        },
      },
      {
        ...base,
        address: {
          ...base,
          houseNumber: '41',
          latitude: null,
          longitude: null,
          coordinatesPrecision: null,
        },
        filters: {
          bandwidths: [],
          networks: [],
          contractTerms: [],
          connectionTypes: [],
          technologyTypes: [],
        },
      },
    ],
  });
});
afterAll(async () => {
  await store.close();
  database.remove();
});

describe('prepareTableRows', () => {
  const selection = { request: availabilityRequests, address: addresses };
  const joined = () =>
    db
      .select(selection)
      .from(availabilityRequests)
      .innerJoin(addresses, eq(addresses.id, availabilityRequests.addressId));

  it('when joined rows are read, then they equal what drizzle maps: Dates, parsed JSON, numbers and nulls', () => {
    const query = joined()
      .where(eq(availabilityRequests.instanceId, sql.placeholder('instanceId')))
      .orderBy(asc(addresses.houseNumber));
    const rows = prepareTableRows(db, selection, query).all({ instanceId });

    expect(rows).toEqual(query.all({ instanceId }));
    expect(rows).toHaveLength(2);
    const [first, second] = rows;
    expect(first?.request.createdAt).toEqual(new Date('2026-11-22T10:00:00.250Z'));
    expect(first?.request.filters.bandwidths).toEqual([{ download: 1_000_000, upload: 1_000_000 }]);
    expect(first?.request.status).toBe('completed');
    expect(first?.address).toMatchObject({
      houseNumber: '40',
      latitude: 51.9225,
      coordinatesPrecision: 'city',
    });
    expect(second?.address).toMatchObject({ houseNumber: '41', latitude: null, coordinatesPrecision: null });
  });

  it('when some columns are picked, then rows carry exactly those, decoded as drizzle decodes them', () => {
    const picked = {
      request: pickColumns(availabilityRequests, ['id', 'filters', 'createdAt']),
      address: pickColumns(addresses, ['houseNumber', 'latitude']),
    };
    const query = db
      .select(picked)
      .from(availabilityRequests)
      .innerJoin(addresses, eq(addresses.id, availabilityRequests.addressId))
      .where(eq(availabilityRequests.instanceId, sql.placeholder('instanceId')))
      .orderBy(asc(addresses.houseNumber));
    const rows = prepareTableRows(db, picked, query).all({ instanceId });

    expect(rows).toEqual(query.all({ instanceId }));
    expect(rows.map((row) => [Object.keys(row.request), row.address])).toEqual([
      [['id', 'filters', 'createdAt'], { houseNumber: '40', latitude: 51.9225 }],
      [['id', 'filters', 'createdAt'], { houseNumber: '41', latitude: null }],
    ]);
    expect(rows[0]?.request.createdAt).toEqual(new Date('2026-11-22T10:00:00.250Z'));
    expect(rows[1]?.request.filters.networks).toEqual([]);
  });

  it('when keys are not identifiers (quotes, spaces, a backslash), then rows carry them as written', () => {
    const picked = {
      "the request's": {
        'id "quoted"': availabilityRequests.id,
        'created\\at': availabilityRequests.createdAt,
      },
      'an address': { 'house number': addresses.houseNumber },
    };
    // The file's database holds one instance's two requests only.
    const query = db
      .select(picked)
      .from(availabilityRequests)
      .innerJoin(addresses, eq(addresses.id, availabilityRequests.addressId))
      .orderBy(asc(addresses.houseNumber));
    const rows = prepareTableRows(db, picked, query).all({});

    expect(rows).toEqual(query.all());
    expect(rows.map((row) => row['an address'])).toEqual([
      { 'house number': '40' },
      { 'house number': '41' },
    ]);
    expect(rows[0]?.["the request's"]['created\\at']).toEqual(new Date('2026-11-22T10:00:00.250Z'));
  });

  it('when a placeholder is missing or a row is absent, then get answers undefined; values in the query stay bound', () => {
    const query = joined().where(
      sql`${availabilityRequests.instanceId} = ${sql.placeholder('instanceId')} and ${addresses.houseNumber} = ${'41'}`,
    );
    const statement = prepareTableRows(db, selection, query);

    expect(statement.get({ instanceId })?.address.houseNumber).toBe('41');
    expect(statement.get({ instanceId: 'ins_other' })).toBeUndefined();
  });

  it('when the query selects other columns than the selection names, then preparing it throws', () => {
    const query = db.select({ id: pricePlans.id }).from(pricePlans);

    expect(() => prepareTableRows(db, selection, query)).toThrow(
      'the query selects 1 columns, the selection names 28',
    );
  });
});

describe('prepareNumber', () => {
  it('when a count is read, then it answers the number drizzle reads; a missing row or null answers null', () => {
    const countQuery = db
      .select({ n: count() })
      .from(pricePlans)
      .where(eq(pricePlans.instanceId, sql.placeholder('instanceId')));
    const maxQuery = db
      .select({ n: sql<number>`max(${pricePlans.mrcMarkupBp})` })
      .from(pricePlans)
      .where(eq(pricePlans.instanceId, 'ins_none'));
    const noRow = db.select({ n: pricePlans.mrcMarkupBp }).from(pricePlans).where(sql`0`);

    expect(prepareNumber(db, countQuery).get({ instanceId })).toBe(2);
    expect(countQuery.all({ instanceId })).toEqual([{ n: 2 }]);
    expect(prepareNumber(db, countQuery).get({ instanceId: 'ins_none' })).toBe(0);
    expect(prepareNumber(db, maxQuery).get({})).toBeNull();
    expect(prepareNumber(db, noRow).get({})).toBeNull();
  });

  it('when the query selects more than one column, then preparing it throws', () => {
    const query = db.select({ id: pricePlans.id, name: pricePlans.name }).from(pricePlans);

    expect(() => prepareNumber(db, query)).toThrow('the query selects 2 columns, not one');
  });
});
