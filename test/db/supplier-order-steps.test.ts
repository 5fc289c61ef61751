import { describe, expect, it } from 'vitest';
import type { ClaimedSupplierOrder, OrderRecord, SupplierOrderRow } from '../../src/db/rows.js';
import type { Store } from '../../src/db/store.js';
import { recordStatements, storedRows, testStore, updateStoredRows } from '../helpers/store.js';
import {
  at,
  dataStatements,
  placeOrder,
  quietStep,
  type SupplierOrderWorld,
  supplierOrderWorldEach,
  T0,
} from './supplier-order-fixtures.js';

/*
 * What the order worker's two store operations return and write, on this project's store (SQLite, then
 * PostgreSQL): `claimSupplierOrders` gives each claimed supplier order its own source, order, customer and
 * lines, in the order they were due; `recordSupplierOrderProgress` returns the record a read would give
 * and writes an event exactly when the order changed. Both read in batches: a claim takes as many
 * statements for one supplier order as for several, a step reads each row once.
 */

const OWNER = 'worker-1';
const LEASE_MS = 30_000;

describe(`supplier order claims and steps in the ${testStore} store`, () => {
  let store: Store;
  let world: SupplierOrderWorld;
  supplierOrderWorldEach((opened, made) => {
    store = opened;
    world = made;
  });

  const supplierOrdersOf = async (orderId: string) =>
    (await storedRows(store, 'supplierOrders', { orderId })) as SupplierOrderRow[];
  const supplierOrderOf = async (order: OrderRecord, sourceId: string) => {
    const found = (await supplierOrdersOf(order.order.id)).find((row) => row.sourceId === sourceId);
    if (!found) throw new Error(`no supplier order of ${sourceId}`);
    return found;
  };
  const eventsOf = async (orderId: string) =>
    (await storedRows(store, 'outboxEvents', { subjectId: orderId })) as {
      version: number;
      payload: { kind: string; version: number; record: unknown };
    }[];
  const orderRead = async (orderId: string) => store.findOrder(world.instanceId, orderId);

  /** A claimed supplier order as reading its rows one by one gives it. */
  const readClaim = async (supplierOrderId: string): Promise<ClaimedSupplierOrder> => {
    const [supplierOrder] = (await storedRows(store, 'supplierOrders', {
      id: supplierOrderId,
    })) as SupplierOrderRow[];
    if (!supplierOrder) throw new Error(`no supplier order ${supplierOrderId}`);
    const record = await orderRead(supplierOrder.orderId);
    if (!record) throw new Error(`no order ${supplierOrder.orderId}`);
    const [source] = await storedRows(store, 'sources', { id: supplierOrder.sourceId });
    return {
      supplierOrder,
      source: source as ClaimedSupplierOrder['source'],
      order: record.order,
      customer: record.customer,
      lines: record.lines.filter((line) => line.supplierOrderRef === supplierOrderId),
    };
  };

  it('when supplier orders of two orders are due at different times, then each claim carries its own source, order, customer and lines, in the order they were due', async () => {
    const { one, two, three } = world.sources;
    const alpha = await placeOrder(store, world, 'Alpha', [one, two, null, one]);
    const beta = await placeOrder(store, world, 'Beta', [two, three, two]);
    const gamma = await placeOrder(store, world, 'Gamma', [three]);
    const [alphaOne, alphaTwo, betaTwo, betaThree, gammaThree] = await Promise.all([
      supplierOrderOf(alpha, one),
      supplierOrderOf(alpha, two),
      supplierOrderOf(beta, two),
      supplierOrderOf(beta, three),
      supplierOrderOf(gamma, three),
    ]);
    const due = async (row: SupplierOrderRow | undefined, nextCheckAt: Date) =>
      updateStoredRows(store, 'supplierOrders', { nextCheckAt }, { id: row?.id ?? '' });
    await due(betaThree, at(-3_000));
    await due(alphaTwo, at(-2_000));
    await due(alphaOne, at(-1_000));
    await due(betaTwo, at(-1_000));
    await due(gammaThree, at(60_000));
    // The two due at the same time go by id (bytewise; the ids are ASCII).
    const tied = [alphaOne?.id ?? '', betaTwo?.id ?? ''].sort();
    const now = at(500);

    const first = await recordStatements(store, () => store.claimSupplierOrders(OWNER, now, LEASE_MS, 3));
    const second = await recordStatements(store, () => store.claimSupplierOrders(OWNER, now, LEASE_MS, 10));
    const third = await store.claimSupplierOrders(OWNER, now, LEASE_MS, 10);

    expect(first.result.map((claim) => claim.supplierOrder.id)).toEqual([
      betaThree?.id,
      alphaTwo?.id,
      tied[0],
    ]);
    expect(second.result.map((claim) => claim.supplierOrder.id)).toEqual([tied[1]]);
    expect(third).toEqual([]);
    const claims = [...first.result, ...second.result];
    expect(claims).toStrictEqual(await Promise.all(claims.map((claim) => readClaim(claim.supplierOrder.id))));
    const byId = new Map(claims.map((claim) => [claim.supplierOrder.id, claim]));
    const shown = (row: SupplierOrderRow | undefined) => {
      const claim = byId.get(row?.id ?? '');
      return claim && [claim.source.key, claim.customer.name, claim.lines.map((line) => line.position)];
    };
    expect([alphaOne, alphaTwo, betaTwo, betaThree].map(shown)).toEqual([
      ['one', 'Alpha', [1, 4]],
      ['two', 'Alpha', [2]],
      ['two', 'Beta', [1, 3]],
      ['three', 'Beta', [2]],
    ]);
    for (const claim of claims) {
      expect(claim.supplierOrder).toMatchObject({
        leaseOwner: OWNER,
        leaseExpiresAt: new Date(now.getTime() + LEASE_MS),
        attempts: 1,
        updatedAt: now,
      });
    }
    // The claim reads in batches: as many statements for three supplier orders as for one. SQLite looks for
    // a due one before it opens the claim's transaction; PostgreSQL's lease is one UPDATE of the rows it
    // locks, followed by the three reads.
    const perClaim = testStore === 'postgres' ? 4 : 6;
    expect(dataStatements(first.sql)).toHaveLength(perClaim);
    expect(dataStatements(second.sql)).toHaveLength(perClaim);
  });

  it('when a step changes one line, then it returns the record a read gives, with one event, and leaves the lines of other supplier orders alone', async () => {
    const { one, two } = world.sources;
    const alpha = await placeOrder(store, world, 'Alpha', [one, two, null, one]);
    const claims = await store.claimSupplierOrders(OWNER, at(100), LEASE_MS, 10);
    const claim = claims.find((each) => each.source.id === one);
    if (!claim) throw new Error('the supplier order of source one was not claimed');
    const [first, second, , fourth] = alpha.lines;
    const now = at(1_000);
    const milestone = { description: null, date: '2026-11-26T08:00:00Z', name: 'acknowledged' };

    const { result, sql } = await recordStatements(store, () =>
      store.recordSupplierOrderProgress(
        quietStep(claim.supplierOrder.id, OWNER, now, {
          lines: [
            {
              lineId: first?.id ?? '',
              status: 'submitted',
              supplierStatus: 'acknowledged',
              supplierOrderId: 'PO-1',
              supplierItemId: '1',
              expectedCompletionDate: at(10 * 86_400_000),
              // A member left undefined is not stored (JSON), so the record has none either.
              milestones: [{ ...milestone, note: undefined } as typeof milestone],
            },
            // Another supplier order's line: not this step's to write.
            { lineId: second?.id ?? '', status: 'failed', errorCode: 'WRONG' },
            // As stored: nothing to write.
            { lineId: fourth?.id ?? '', status: 'pending', milestones: [], charges: [] },
          ],
        }),
      ),
    );

    const read = await orderRead(alpha.order.id);
    expect(result).toStrictEqual(read);
    expect(read?.order).toMatchObject({ status: 'submitted', version: 2, updatedAt: now });
    expect(read?.lines.map((line) => [line.position, line.status, line.updatedAt])).toEqual([
      [1, 'submitted', now],
      [2, 'pending', T0],
      [3, 'pending', T0],
      [4, 'pending', T0],
    ]);
    expect(read?.lines[0]).toMatchObject({
      supplierStatus: 'acknowledged',
      supplierOrderId: 'PO-1',
      supplierItemId: '1',
      expectedCompletionDate: at(10 * 86_400_000),
      milestones: [milestone],
    });
    const events = await eventsOf(alpha.order.id);
    expect(events.map((event) => [event.version, event.payload.kind])).toEqual([
      [1, 'created'],
      [2, 'updated'],
    ]);
    expect(events[1]?.payload).toEqual({
      kind: 'updated',
      version: 2,
      updatedAtMs: now.getTime(),
      record: JSON.parse(JSON.stringify(read)),
    });
    expect(await supplierOrderOf(alpha, one)).toMatchObject({
      status: 'following',
      sellerOrderId: `seller-${claim.supplierOrder.id}`,
      leaseOwner: null,
      leaseExpiresAt: null,
      nextCheckAt: new Date(now.getTime() + 60_000),
      updatedAt: now,
    });
    // Each row read once: SQLite reads the order (under its lock), the lines, then writes; PostgreSQL reads
    // the order with its lines in one statement, then writes the supplier order, the lines, the order and its
    // event in another, without a transaction (the order's row locked there at the version read).
    expect(dataStatements(sql)).toHaveLength(testStore === 'sqlite' ? 6 : 2);
    if (testStore === 'postgres') {
      // No transaction: the read, then one write statement, whose first clause locks the order's row (at the
      // version read) before the supplier order's is updated, as every write to an order's lines does.
      expect(sql).toEqual([
        expect.stringMatching(/^select "orders"\."id", .* from "supplier_orders" inner join "orders" /),
        expect.stringMatching(
          /^with locked as \(select "orders"\."id" from "orders" where .* for update\),\s+held as \(update "supplier_orders" /,
        ),
      ]);
    }
  });

  it('when a step changes nothing shown, then it returns the record as read, with no event and the same version', async () => {
    const alpha = await placeOrder(store, world, 'Alpha', [world.sources.one, null]);
    const [claim] = await store.claimSupplierOrders(OWNER, at(100), LEASE_MS, 10);
    if (!claim) throw new Error('nothing was claimed');
    const [line] = claim.lines;

    const { result, sql } = await recordStatements(store, () =>
      store.recordSupplierOrderProgress(
        quietStep(claim.supplierOrder.id, OWNER, at(1_000), {
          lines: [{ lineId: line?.id ?? '', status: 'pending', supplierStatus: null, milestones: [] }],
        }),
      ),
    );

    expect(result).toStrictEqual(alpha);
    expect(await orderRead(alpha.order.id)).toStrictEqual(alpha);
    expect((await eventsOf(alpha.order.id)).map((event) => event.version)).toEqual([1]);
    expect(await supplierOrderOf(alpha, world.sources.one)).toMatchObject({
      status: 'following',
      leaseOwner: null,
      updatedAt: at(1_000),
    });
    expect(dataStatements(sql)).toHaveLength(testStore === 'sqlite' ? 3 : 2);
  });

  it('when a step reads cancellation charges, then they replace the supplier order’s on the order as one change, and the same charges again change nothing', async () => {
    const { one, two } = world.sources;
    const alpha = await placeOrder(store, world, 'Alpha', [one, two]);
    const charge = {
      id: 'chg-1',
      state: 'awaitingResponse',
      responseDueDate: '2026-11-27T10:00:00Z',
      items: [
        {
          id: 'item-1',
          priceType: 'nonRecurring',
          priceCategory: null,
          amountMinor: 25_000,
          currency: 'EUR',
          blocking: true,
          state: 'awaitingResponse',
        },
      ],
    };
    const step = async (now: Date) => {
      const claim = (await store.claimSupplierOrders(OWNER, now, LEASE_MS, 10)).find(
        (each) => each.source.id === one,
      );
      if (!claim) throw new Error('the supplier order of source one was not claimed');
      return store.recordSupplierOrderProgress(
        quietStep(claim.supplierOrder.id, OWNER, now, { nextCheckAt: now, cancellationCharges: [charge] }),
      );
    };

    const changed = await step(at(1_000));
    const again = await step(at(2_000));

    const supplierOrder = await supplierOrderOf(alpha, one);
    const read = await orderRead(alpha.order.id);
    expect(changed).toStrictEqual(read);
    expect(again).toStrictEqual(read);
    expect(read?.order).toMatchObject({
      version: 2,
      updatedAt: at(1_000),
      cancellationCharges: [{ ...charge, supplierOrderId: supplierOrder.id, sourceId: one }],
    });
    expect(read?.lines).toStrictEqual(alpha.lines);
    expect((await eventsOf(alpha.order.id)).map((event) => event.version)).toEqual([1, 2]);
  });

  it('when the lease was lost or the supplier order is unknown, then the step writes nothing and returns undefined', async () => {
    const alpha = await placeOrder(store, world, 'Alpha', [world.sources.one]);
    const [claim] = await store.claimSupplierOrders(OWNER, at(100), LEASE_MS, 10);
    if (!claim) throw new Error('nothing was claimed');
    const before = await supplierOrdersOf(alpha.order.id);
    const lines = [{ lineId: alpha.lines[0]?.id ?? '', status: 'submitted' as const }];

    const lost = await store.recordSupplierOrderProgress(
      quietStep(claim.supplierOrder.id, 'worker-2', at(1_000), { lines }),
    );
    const expired = await store.recordSupplierOrderProgress(
      quietStep(claim.supplierOrder.id, OWNER, at(100 + LEASE_MS), { lines }),
    );
    const unknown = await store.recordSupplierOrderProgress(
      quietStep('sor_unknown', OWNER, at(1_000), { lines }),
    );

    expect([lost, expired, unknown]).toEqual([undefined, undefined, undefined]);
    expect(await supplierOrdersOf(alpha.order.id)).toStrictEqual(before);
    expect(await orderRead(alpha.order.id)).toStrictEqual(alpha);
    expect((await eventsOf(alpha.order.id)).map((event) => event.version)).toEqual([1]);
  });

  it('when the steps of two supplier orders of one order are recorded at once, then both changes are kept, one version and one event each', async () => {
    const { one, two } = world.sources;
    const alpha = await placeOrder(store, world, 'Alpha', [one, two]);
    const claims = await store.claimSupplierOrders(OWNER, at(100), LEASE_MS, 10);
    expect(claims).toHaveLength(2);
    const now = at(1_000);
    const recorded = await Promise.all(
      claims.map((claim) => {
        const line = alpha.lines.find((each) => each.sourceId === claim.source.id);
        return store.recordSupplierOrderProgress(
          quietStep(claim.supplierOrder.id, OWNER, now, {
            lines: [
              { lineId: line?.id ?? '', status: 'submitted', supplierOrderId: `PO-${claim.source.id}` },
            ],
          }),
        );
      }),
    );

    const read = await orderRead(alpha.order.id);
    expect(read?.order).toMatchObject({ status: 'submitted', version: 3 });
    expect(read?.lines.map((line) => [line.status, line.supplierOrderId])).toEqual([
      ['submitted', `PO-${one}`],
      ['submitted', `PO-${two}`],
    ]);
    // The one recorded last returns the order as it stands; the other, the order its own change left.
    const versions = recorded.map((record) => record?.order.version).sort();
    expect(versions).toEqual([2, 3]);
    expect(recorded.find((record) => record?.order.version === 3)).toStrictEqual(read);
    const events = await eventsOf(alpha.order.id);
    expect(events.map((event) => [event.version, event.payload.kind])).toEqual([
      [1, 'created'],
      [2, 'updated'],
      [3, 'updated'],
    ]);
    expect(events[2]?.payload.record).toEqual(JSON.parse(JSON.stringify(read)));
    for (const claim of claims) {
      expect(await supplierOrderOf(alpha, claim.source.id)).toMatchObject({
        status: 'following',
        leaseOwner: null,
      });
    }
  });
});
