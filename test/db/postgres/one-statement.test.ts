import { asc, type SQL, sql } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bulkInsert, oneStatement } from '../../../src/db/postgres/bulk-insert.js';
import type { PostgresDb } from '../../../src/db/postgres/client.js';
import {
  addresses,
  availabilityRequests,
  gatheringTasks,
  listTotals,
} from '../../../src/db/postgres/schema/index.js';
import { type InsertDatabase, openInsertDatabase, queuedTask } from './insert-fixtures.js';
import { address, noFilters } from './task-fixtures.js';

const T0 = new Date('2026-11-26T09:00:00.000Z');
const stamps = { createdAt: T0, updatedAt: T0 };
const insertAddresses = bulkInsert(addresses);
const insertRequests = bulkInsert(availabilityRequests);
const insertTasks = bulkInsert(gatheringTasks, ['id']);

const request = (id: string, addressId: string) => ({
  id,
  instanceId: 'ins_a',
  addressId,
  pricePlanId: 'ppl_a',
  filters: noFilters,
  status: 'pending' as const,
  sourcesTotal: 2,
  ...stamps,
});
const task = (availabilityRequestId: string, sourceId: string) =>
  queuedTask(availabilityRequestId, sourceId, T0);

describe('oneStatement (PostgreSQL): several inserts in one statement', () => {
  let fixture: InsertDatabase;
  let db: PostgresDb;
  const count = async (table: 'addresses' | 'availability_requests' | 'gathering_tasks') =>
    (await db.execute<{ n: number }>(sql`select count(*)::int as n from ${sql.identifier(table)}`)).rows[0]
      ?.n;

  beforeAll(async () => {
    fixture = await openInsertDatabase(T0);
    db = fixture.db;
  });
  afterAll(() => fixture.close());

  it('when later parts reference rows of earlier ones, then one statement writes them all, tasks in order', async () => {
    const statements: string[] = [];
    const dialect = new PgDialect({ casing: 'snake_case' });
    const statement = oneStatement([
      insertAddresses([address('adr_1'), address('adr_2')]),
      insertRequests([request('avr_1', 'adr_1'), request('avr_2', 'adr_2')]),
      insertTasks([task('avr_2', 'src_b'), task('avr_1', 'src_a'), task('avr_2', 'src_a')]),
    ]);
    if (!statement) throw new Error('expected a statement');

    const recording = (query: SQL) => {
      statements.push(dialect.sqlToQuery(query).sql);
      return db.execute(query);
    };
    await recording(statement);

    expect(statements).toHaveLength(1);
    expect(statements[0]).toMatch(
      /^with s1 as \(insert into "addresses" .+\), s2 as \(insert into "availability_requests" .+\) insert into "gathering_tasks" /s,
    );
    expect(await db.select({ id: addresses.id }).from(addresses).orderBy(asc(addresses.id))).toEqual([
      { id: 'adr_1' },
      { id: 'adr_2' },
    ]);
    const tasks = await db
      .select({ request: gatheringTasks.availabilityRequestId, source: gatheringTasks.sourceId })
      .from(gatheringTasks)
      .orderBy(asc(gatheringTasks.id));
    expect(tasks).toEqual([
      { request: 'avr_2', source: 'src_b' },
      { request: 'avr_1', source: 'src_a' },
      { request: 'avr_2', source: 'src_a' },
    ]);
    // The requests' trigger counted them into the instance's list total.
    const totals = await db
      .select({ total: sql<number>`sum(${listTotals.total})::int` })
      .from(listTotals)
      .where(sql`${listTotals.instanceId} = 'ins_a' and ${listTotals.list} = 'availability_requests'`);
    expect(totals).toEqual([{ total: 2 }]);
  });

  it('when its last part breaks a foreign key, then no part is written, outside any transaction', async () => {
    const before = [
      await count('addresses'),
      await count('availability_requests'),
      await count('gathering_tasks'),
    ];
    const statement = oneStatement([
      insertAddresses([address('adr_3')]),
      insertRequests([request('avr_3', 'adr_3')]),
      insertTasks([task('avr_3', 'src_a'), task('avr_3', 'src_unknown')]),
    ]);
    if (!statement) throw new Error('expected a statement');

    await expect(db.execute(statement)).rejects.toMatchObject({
      cause: { code: '23503', constraint: 'gathering_tasks_source_id_sources_id_fk' },
    });

    expect([
      await count('addresses'),
      await count('availability_requests'),
      await count('gathering_tasks'),
    ]).toEqual(before);
  });

  it('when parts have no rows, then they are left out, and no part leaves no statement', () => {
    const dialect = new PgDialect({ casing: 'snake_case' });
    const requestsOnly = oneStatement([
      insertAddresses([]),
      insertRequests([request('avr_9', 'adr_9')]),
      insertTasks([]),
    ]);

    expect(requestsOnly && dialect.sqlToQuery(requestsOnly).sql).toMatch(
      /^insert into "availability_requests" /,
    );
    expect(oneStatement([insertAddresses([]), insertTasks([])])).toBeUndefined();
    expect(oneStatement([])).toBeUndefined();
  });
});
