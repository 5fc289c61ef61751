import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PostgresDb } from '../../../src/db/postgres/client.js';
import * as pgQueries from '../../../src/db/postgres/queries/index.js';
import type { SqliteDb } from '../../../src/db/sqlite/client.js';
import * as sqliteQueries from '../../../src/db/sqlite/queries/index.js';
import { noFilters, openRequestStores, T1, T2 } from './request-fixtures.js';
import type { TwinStores } from './twin-stores.js';

describe('availability requests on PostgreSQL', () => {
  let stores: TwinStores;
  let db: PostgresDb;
  let lite: SqliteDb;

  beforeAll(async () => {
    stores = await openRequestStores();
    ({ db, lite } = stores);
  });

  afterAll(async () => {
    await stores?.close();
  });

  it('when a request is looked up, then its shown columns come back, and nothing for another instance', async () => {
    const found = await pgQueries.findAvailabilityRequest(db, 'ins_a', 'avr_a1');
    expect(found).toEqual({
      request: {
        id: 'avr_a1',
        filters: { ...noFilters, networks: ['avr_a1'] },
        status: 'pending',
        sourcesTotal: 4,
        sourcesFinished: 0,
        createdAt: T1,
        updatedAt: T1,
      },
      address: {
        id: 'adr_avr_a1',
        street: 'Street avr_a1',
        city: 'Amsterdam',
        houseNumber: '1',
        houseNumberAddition: '',
        postalCode: '1016XA',
        countryCode: 'NL',
        continentCode: 'EU',
        latitude: 52.37,
        longitude: 4.89,
        coordinatesPrecision: 'address',
      },
    });
    expect(found).toEqual(await sqliteQueries.findAvailabilityRequest(lite, 'ins_a', 'avr_a1'));
    expect(await pgQueries.findAvailabilityRequest(db, 'ins_b', 'avr_a1')).toBeUndefined();
    expect(await pgQueries.findAvailabilityRequest(db, 'ins_a', 'avr_missing')).toBeUndefined();
  });

  it('when requests are looked up by ids across instances, then each found one comes back once, as SQLite returns it', async () => {
    const ids = ['avr_a1', 'avr_missing', 'avr_B2', 'avr_a1'];
    const byId = (records: { request: { id: string } }[]) =>
      [...records].sort((a, b) => (a.request.id < b.request.id ? -1 : 1));
    const found = byId(await pgQueries.findAvailabilityRequestsById(db, ids));

    expect(found.map((record) => record.request.id)).toEqual(['avr_B2', 'avr_a1']);
    expect(found[1]).toEqual(await pgQueries.findAvailabilityRequest(db, 'ins_a', 'avr_a1'));
    expect(found).toEqual(byId(await sqliteQueries.findAvailabilityRequestsById(lite, ids)));
    const otherInstance = await pgQueries.findAvailabilityRequestsById(db, ['avr_a1', 'avr_f7']);
    expect(otherInstance.map((record) => record.request.id).sort()).toEqual(['avr_a1', 'avr_f7']);
    expect(await pgQueries.findAvailabilityRequestsById(db, [])).toEqual([]);
    expect(await sqliteQueries.findAvailabilityRequestsById(lite, [])).toEqual([]);
  });

  it('when requests are counted, listed, paged and sliced, then the values and order are SQLite’s (bytewise ids)', async () => {
    const ids = (records: { request: { id: string } }[]) => records.map((record) => record.request.id);
    expect(await pgQueries.countAvailabilityRequests(db, 'ins_a')).toBe(7);
    expect(await pgQueries.countAvailabilityRequests(db, 'ins_a', 'cus_a')).toBe(3);
    expect(await pgQueries.countAvailabilityRequests(db, 'ins_a', '')).toBe(7);
    expect(await pgQueries.countAvailabilityRequests(db, 'ins_b', 'cus_a')).toBe(0);
    expect(await pgQueries.countAvailabilityRequests(db, 'ins_missing')).toBe(0);

    const newestFirst = ['avr_e6', 'avr_d5', 'avr_b3', 'avr_a1', 'avr_Z9', 'avr_B2', 'avr_c4'];
    expect(ids(await pgQueries.listAvailabilityRequestsPage(db, 'ins_a', { offset: 0, limit: 10 }))).toEqual(
      newestFirst,
    );
    expect(ids(await pgQueries.listAvailabilityRequestsPage(db, 'ins_a', { offset: 2, limit: 3 }))).toEqual(
      newestFirst.slice(2, 5),
    );
    for (const page of [
      { offset: 0, limit: 10 },
      { offset: 3, limit: 2 },
      { offset: 9, limit: 2 },
    ]) {
      expect(await pgQueries.listAvailabilityRequestsPage(db, 'ins_a', page)).toEqual(
        await sqliteQueries.listAvailabilityRequestsPage(lite, 'ins_a', page),
      );
    }

    const older = await pgQueries.sliceAvailabilityRequests(db, 'ins_a', {
      from: { createdAt: T1, id: 'avr_a1' },
      direction: 'older',
      limit: 10,
    });
    expect(ids(older)).toEqual(['avr_Z9', 'avr_B2', 'avr_c4']);
    const newer = await pgQueries.sliceAvailabilityRequests(db, 'ins_a', {
      from: { createdAt: T1, id: 'avr_Z9' },
      direction: 'newer',
      limit: 3,
    });
    expect(ids(newer)).toEqual(['avr_a1', 'avr_b3', 'avr_d5']);
    const froms = [
      null,
      { createdAt: T1, id: 'avr_a1' },
      { createdAt: T1, id: 'avr_Z9' },
      { createdAt: T2, id: 'avr_d5' },
    ];
    for (const from of froms) {
      for (const direction of ['older', 'newer'] as const) {
        for (const customerId of [undefined, null, 'cus_a', 'cus_b']) {
          for (const limit of [1, 2, 10]) {
            const slice = { from, direction, limit, customerId };
            expect(await pgQueries.sliceAvailabilityRequests(db, 'ins_a', slice)).toEqual(
              await sqliteQueries.sliceAvailabilityRequests(lite, 'ins_a', slice),
            );
          }
        }
      }
    }
  });

  it('when customers’ latest requests and counts are read, then they are SQLite’s', async () => {
    const customerIds = ['cus_c', 'cus_a', 'cus_b', 'cus_none'];
    const latest = await pgQueries.listLatestRequestsOfCustomers(db, 'ins_a', customerIds, 2);
    expect(latest.map((record) => [record.customerId, record.request.id])).toEqual([
      ['cus_c', 'avr_e6'],
      ['cus_b', 'avr_d5'],
      ['cus_b', 'avr_b3'],
      ['cus_a', 'avr_a1'],
      ['cus_a', 'avr_B2'],
    ]);
    expect(latest).toEqual(await sqliteQueries.listLatestRequestsOfCustomers(lite, 'ins_a', customerIds, 2));
    expect(await pgQueries.listLatestRequestsOfCustomers(db, 'ins_a', [], 2)).toEqual([]);

    const counts = await pgQueries.countRequestsOfCustomers(db, 'ins_a', customerIds);
    expect([...counts]).toEqual([
      ['cus_a', 3],
      ['cus_b', 2],
      ['cus_c', 1],
    ]);
    expect([...counts]).toEqual([
      ...(await sqliteQueries.countRequestsOfCustomers(lite, 'ins_a', customerIds)),
    ]);
    expect(await pgQueries.countRequestsOfCustomers(db, 'ins_a', [])).toEqual(new Map());
  });
});
