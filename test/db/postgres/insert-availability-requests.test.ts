import { eq, sql } from 'drizzle-orm';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PostgresDb } from '../../../src/db/postgres/client.js';
import * as pgQueries from '../../../src/db/postgres/queries/index.js';
import * as pgSchema from '../../../src/db/postgres/schema/index.js';
import type { NewAvailabilityRequest } from '../../../src/db/rows.js';
import type { SqliteDb } from '../../../src/db/sqlite/client.js';
import * as sqliteQueries from '../../../src/db/sqlite/queries/index.js';
import { MONTH_START, NOW, noFilters, openRequestStores } from './request-fixtures.js';
import type { TwinStores } from './twin-stores.js';

const newElement = (
  customerId: string | null,
  sourceIds: string[],
  street = 'Damrak',
): NewAvailabilityRequest => ({
  address: {
    inputKind: 'fields',
    street,
    city: 'Amsterdam',
    houseNumber: '70',
    houseNumberAddition: 'A',
    postalCode: '1012LM',
    countryCode: 'NL',
    continentCode: 'EU',
    latitude: 52.3759,
    longitude: 4.8965,
    coordinatesPrecision: 'address',
  },
  filters: { ...noFilters, contractTerms: [12] },
  customerId,
  projectId: null,
  pricePlanId: 'ppl_a',
  sourceIds,
});

describe('creating availability requests on PostgreSQL', () => {
  let stores: TwinStores;
  let pool: pg.Pool;
  let db: PostgresDb;
  let lite: SqliteDb;
  const rowCount = async (table: string, where = 'true') =>
    (await pool.query(`SELECT count(*)::int AS n FROM "${table}" WHERE ${where}`)).rows[0].n as number;

  beforeAll(async () => {
    stores = await openRequestStores();
    ({ pool, db, lite } = stores);
  });

  afterAll(async () => {
    await stores?.close();
  });

  it('when a batch is created, then its addresses, requests and queued tasks are written as SQLite writes them', async () => {
    const input = {
      instanceId: 'ins_a',
      userId: 'usr_a',
      now: NOW,
      requests: [
        newElement('cus_b', ['src_ef', 'src_kpn_wba'], 'First'),
        newElement(null, [], 'Second'),
        newElement('cus_c', ['src_lc'], 'Third'),
      ],
      limits: [],
      monthStart: MONTH_START,
    };
    const result = await pgQueries.insertAvailabilityRequests(db, input);
    if (!('records' in result)) throw new Error('expected records');
    const [first, second, third] = result.records;
    expect(first).toEqual({
      request: {
        id: expect.stringMatching(/^avr_[0-9a-z]{26}$/),
        instanceId: 'ins_a',
        addressId: first?.address.id,
        createdByUserId: 'usr_a',
        customerId: 'cus_b',
        projectId: null,
        pricePlanId: 'ppl_a',
        filters: { ...noFilters, contractTerms: [12] },
        status: 'pending',
        sourcesTotal: 2,
        sourcesFinished: 0,
        createdAt: NOW,
        updatedAt: NOW,
      },
      address: {
        id: expect.stringMatching(/^adr_[0-9a-z]{26}$/),
        instanceId: 'ins_a',
        ...newElement(null, [], 'First').address,
        createdAt: NOW,
        updatedAt: NOW,
      },
    });
    expect(second?.request).toMatchObject({ status: 'completed', sourcesTotal: 0, customerId: null });
    expect(third?.request).toMatchObject({ status: 'pending', sourcesTotal: 1, customerId: 'cus_c' });

    // Stored exactly as returned, and as SQLite returns the same batch (ids aside).
    for (const record of result.records) {
      const [storedRequest] = await db
        .select()
        .from(pgSchema.availabilityRequests)
        .where(eq(pgSchema.availabilityRequests.id, record.request.id));
      const [storedAddress] = await db
        .select()
        .from(pgSchema.addresses)
        .where(eq(pgSchema.addresses.id, record.address.id));
      expect(storedRequest).toEqual(record.request);
      expect(storedAddress).toEqual(record.address);
    }
    const liteResult = await sqliteQueries.insertAvailabilityRequests(lite, input);
    const withoutIds = (records: typeof result.records) =>
      records.map(({ request, address }) => ({
        request: { ...request, id: '', addressId: '' },
        address: { ...address, id: '' },
      }));
    if (!('records' in liteResult)) throw new Error('expected records');
    expect(withoutIds(result.records)).toEqual(withoutIds(liteResult.records));

    const tasks = await db
      .select({
        id: pgSchema.gatheringTasks.id,
        requestId: pgSchema.gatheringTasks.availabilityRequestId,
        sourceId: pgSchema.gatheringTasks.sourceId,
        status: pgSchema.gatheringTasks.status,
        attempts: pgSchema.gatheringTasks.attempts,
        availableAt: pgSchema.gatheringTasks.availableAt,
        leaseOwner: pgSchema.gatheringTasks.leaseOwner,
        finishedAt: pgSchema.gatheringTasks.finishedAt,
        createdAt: pgSchema.gatheringTasks.createdAt,
      })
      .from(pgSchema.gatheringTasks)
      .where(
        sql`${pgSchema.gatheringTasks.availabilityRequestId} in (${first?.request.id}, ${third?.request.id})`,
      )
      .orderBy(pgSchema.gatheringTasks.id);
    const queued = {
      status: 'queued',
      attempts: 0,
      availableAt: NOW,
      leaseOwner: null,
      finishedAt: null,
      createdAt: NOW,
    };
    expect(tasks.map(({ id: _, ...rest }) => rest)).toEqual([
      { requestId: first?.request.id, sourceId: 'src_ef', ...queued },
      { requestId: first?.request.id, sourceId: 'src_kpn_wba', ...queued },
      { requestId: third?.request.id, sourceId: 'src_lc', ...queued },
    ]);
    expect(await pgQueries.findAvailabilityRequest(db, 'ins_a', second?.request.id ?? '')).toMatchObject({
      request: { status: 'completed' },
      address: { street: 'Second' },
    });
    expect(await pgQueries.insertAvailabilityRequests(db, { ...input, requests: [] })).toEqual({
      records: [],
    });
  });

  it('when one element of a batch cannot be written, then nothing of the batch is', async () => {
    const before = [
      await rowCount('addresses'),
      await rowCount('availability_requests'),
      await rowCount('gathering_tasks'),
    ];
    await expect(
      pgQueries.insertAvailabilityRequests(db, {
        instanceId: 'ins_a',
        userId: null,
        now: NOW,
        requests: [newElement(null, ['src_ef']), newElement(null, ['src_missing'])],
      }),
    ).rejects.toThrow();
    expect([
      await rowCount('addresses'),
      await rowCount('availability_requests'),
      await rowCount('gathering_tasks'),
    ]).toEqual(before);
  });

  it('when a batch would exceed a customer’s monthly limit, then the first exceeded limit comes back and nothing is written', async () => {
    // cus_a: avr_a1 and avr_B2 this month (avr_c4 was last month), a limit of 3.
    const input = (requested: number) => ({
      instanceId: 'ins_a',
      userId: 'usr_a',
      now: NOW,
      requests: Array.from({ length: requested }, () => newElement('cus_a', ['src_ef'])),
      limits: [
        { customerId: 'cus_b', limit: 100, requested: 0 },
        { customerId: 'cus_a', limit: 3, requested },
        { customerId: 'cus_c', limit: 0, requested: 1 },
      ],
      monthStart: MONTH_START,
    });
    const before = await rowCount('availability_requests');
    const exceeded = await pgQueries.insertAvailabilityRequests(db, input(2));
    expect(exceeded).toEqual({ exceeded: { customerId: 'cus_a', limit: 3, used: 2, requested: 2 } });
    expect(exceeded).toEqual(await sqliteQueries.insertAvailabilityRequests(lite, input(2)));
    expect(await rowCount('availability_requests')).toBe(before);
    // Without monthStart the month starts now: nothing counted yet.
    const { monthStart: _, ...fromNow } = input(2);
    const created = await pgQueries.insertAvailabilityRequests(db, {
      ...fromNow,
      limits: fromNow.limits.slice(0, 2),
    });
    expect('records' in created && created.records.length).toBe(2);
  });

  it('when 200 single-request creates for a customer with a limit of 50 race through a pool, then exactly 50 are created', async () => {
    const attempts = await Promise.all(
      Array.from({ length: 200 }, () =>
        pgQueries.insertAvailabilityRequests(db, {
          instanceId: 'ins_a',
          userId: 'usr_a',
          now: NOW,
          requests: [newElement('cus_limited', ['src_kpn_wba'])],
          limits: [{ customerId: 'cus_limited', limit: 50, requested: 1 }],
          monthStart: MONTH_START,
        }),
      ),
    );
    const created = attempts.filter((attempt) => 'records' in attempt);
    const refused = attempts.flatMap((attempt) => ('exceeded' in attempt ? [attempt.exceeded] : []));
    expect(created).toHaveLength(50);
    expect(refused).toHaveLength(150);
    expect(new Set(refused.map((exceeded) => JSON.stringify(exceeded)))).toEqual(
      new Set([JSON.stringify({ customerId: 'cus_limited', limit: 50, requested: 1, used: 50 })]),
    );
    expect(await rowCount('availability_requests', `customer_id = 'cus_limited'`)).toBe(50);
    expect(await pgQueries.countAvailabilityRequests(db, 'ins_a', 'cus_limited')).toBe(50);
  });

  it('when batches for two limited customers race with their limits in either order, then neither limit is passed and none deadlocks', async () => {
    const attempts = await Promise.all(
      Array.from({ length: 100 }, (_, index) => {
        const limits = [
          { customerId: 'cus_x', limit: 30, requested: 1 },
          { customerId: 'cus_y', limit: 30, requested: 1 },
        ];
        return pgQueries.insertAvailabilityRequests(db, {
          instanceId: 'ins_a',
          userId: 'usr_a',
          now: NOW,
          requests: [newElement('cus_x', ['src_ef']), newElement('cus_y', ['src_lc'])],
          limits: index % 2 === 0 ? limits : limits.reverse(),
          monthStart: MONTH_START,
        });
      }),
    );
    expect(attempts.filter((attempt) => 'records' in attempt)).toHaveLength(30);
    expect(await rowCount('availability_requests', `customer_id = 'cus_x'`)).toBe(30);
    expect(await rowCount('availability_requests', `customer_id = 'cus_y'`)).toBe(30);
  });

  it('when 1,000 creates without a limit race through a pool, then exactly 1,000 requests and their tasks are written', async () => {
    const before = [
      await rowCount('availability_requests'),
      await rowCount('gathering_tasks'),
      await rowCount('addresses'),
    ];
    const attempts = await Promise.all(
      Array.from({ length: 1000 }, (_, index) =>
        pgQueries.insertAvailabilityRequests(db, {
          instanceId: 'ins_a',
          userId: 'usr_a',
          now: NOW,
          requests: [newElement(index % 2 === 0 ? 'cus_b' : null, index % 3 === 0 ? [] : ['src_kpn_glas'])],
          limits: [],
          monthStart: MONTH_START,
        }),
      ),
    );
    expect(attempts.every((attempt) => 'records' in attempt && attempt.records.length === 1)).toBe(true);
    const withTasks = Array.from({ length: 1000 }, (_, index) => index).filter(
      (index) => index % 3 !== 0,
    ).length;
    expect([
      await rowCount('availability_requests'),
      await rowCount('gathering_tasks'),
      await rowCount('addresses'),
    ]).toEqual([(before[0] ?? 0) + 1000, (before[1] ?? 0) + withTasks, (before[2] ?? 0) + 1000]);
  });
});
