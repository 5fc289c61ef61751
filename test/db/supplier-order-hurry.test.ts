import { describe, expect, it } from 'vitest';
import type { OrderRecord, SupplierOrderRow } from '../../src/db/rows.js';
import type { Store } from '../../src/db/store.js';
import { storedRows, testStore, updateStoredRows } from '../helpers/store.js';
import {
  at,
  placeOrder,
  quietStep,
  type SupplierOrderWorld,
  supplierOrderWorldEach,
} from './supplier-order-fixtures.js';

/*
 * Issue 49, item 1: a seller's Charge event names only its Charge, so `hurrySupplierOrders` keeps the id on
 * every supplier order it makes due (`notifiedChargeIds`, once each), and the step that read it removes it in
 * its fenced record — only the ids it read, so one that arrived while it ran is kept for the next step. On
 * this project's store (SQLite, then PostgreSQL).
 */

const OWNER = 'worker-1';
const LEASE_MS = 30_000;

describe(`charges notified to supplier orders in the ${testStore} store`, () => {
  let store: Store;
  let world: SupplierOrderWorld;
  supplierOrderWorldEach((opened, made) => {
    store = opened;
    world = made;
  });

  const supplierOrderOf = async (order: OrderRecord, sourceId: string): Promise<SupplierOrderRow> => {
    const rows = (await storedRows(store, 'supplierOrders', {
      orderId: order.order.id,
    })) as SupplierOrderRow[];
    const found = rows.find((row) => row.sourceId === sourceId);
    if (!found) throw new Error(`no supplier order of ${sourceId}`);
    return found;
  };
  const notified = async (order: OrderRecord, sourceId: string) => [
    (await supplierOrderOf(order, sourceId)).notifiedChargeIds,
    (await supplierOrderOf(order, sourceId)).hurriedAt,
  ];

  it('when Charge events arrive, then each open supplier order of the source keeps each id once, and other sources’ and ended ones keep none', async () => {
    const { one, two } = world.sources;
    const alpha = await placeOrder(store, world, 'Alpha', [one, two]);
    const beta = await placeOrder(store, world, 'Beta', [one]);
    const gamma = await placeOrder(store, world, 'Gamma', [one]);
    await updateStoredRows(
      store,
      'supplierOrders',
      { status: 'ended', nextCheckAt: null },
      {
        id: (await supplierOrderOf(gamma, one)).id,
      },
    );

    expect(await store.hurrySupplierOrders(one, null, at(1_000), 'CH-1')).toBe(2);
    expect(await store.hurrySupplierOrders(one, null, at(2_000), 'CH-2')).toBe(2);
    // The same event again (a redelivery): made due, the id kept once.
    expect(await store.hurrySupplierOrders(one, null, at(3_000), 'CH-1')).toBe(2);
    // An order event: made due, no charge id.
    expect(await store.hurrySupplierOrders(one, null, at(4_000))).toBe(2);

    expect(await notified(alpha, one)).toEqual([['CH-1', 'CH-2'], at(4_000)]);
    expect(await notified(beta, one)).toEqual([['CH-1', 'CH-2'], at(4_000)]);
    expect(await notified(alpha, two)).toEqual([[], null]);
    expect(await notified(gamma, one)).toEqual([[], null]);
  });

  it('when a step consumed notified ids, then its record (with its lines) removes just those, and one notified during the step stays', async () => {
    const { one } = world.sources;
    const alpha = await placeOrder(store, world, 'Alpha', [one]);
    await store.hurrySupplierOrders(one, null, at(100), 'CH-1');
    await store.hurrySupplierOrders(one, null, at(100), 'CH-2');
    const [claim] = await store.claimSupplierOrders(OWNER, at(200), LEASE_MS, 10);
    if (!claim) throw new Error('nothing was claimed');
    expect(claim.supplierOrder.notifiedChargeIds).toEqual(['CH-1', 'CH-2']);
    // A Charge event while the step reads the seller.
    await store.hurrySupplierOrders(one, null, at(300), 'CH-3');

    const recorded = await store.recordSupplierOrderProgress(
      quietStep(claim.supplierOrder.id, OWNER, at(400), {
        readAt: at(250),
        consumedChargeIds: ['CH-1', 'CH-2'],
        lines: [{ lineId: alpha.lines[0]?.id ?? '', status: 'submitted', supplierStatus: 'acknowledged' }],
      }),
    );

    expect(recorded?.lines[0]?.status).toBe('submitted');
    const row = await supplierOrderOf(alpha, one);
    // Hurried after the step began reading: due at once, with the id it has not read.
    expect([row.notifiedChargeIds, row.nextCheckAt, row.leaseOwner]).toEqual([['CH-3'], at(400), null]);
  });

  it('when a step consumed nothing or the lease was lost, then the notified ids stay', async () => {
    const { one } = world.sources;
    const alpha = await placeOrder(store, world, 'Alpha', [one]);
    await store.hurrySupplierOrders(one, null, at(100), 'CH-1');
    const [claim] = await store.claimSupplierOrders(OWNER, at(200), LEASE_MS, 10);
    if (!claim) throw new Error('nothing was claimed');

    await store.recordSupplierOrderProgress(
      quietStep(claim.supplierOrder.id, 'someone-else', at(300), { consumedChargeIds: ['CH-1'] }),
    );
    expect((await supplierOrderOf(alpha, one)).notifiedChargeIds).toEqual(['CH-1']);

    await store.recordSupplierOrderProgress(quietStep(claim.supplierOrder.id, OWNER, at(300)));
    expect((await supplierOrderOf(alpha, one)).notifiedChargeIds).toEqual(['CH-1']);

    const [again] = await store.claimSupplierOrders(OWNER, at(70_000), LEASE_MS, 10);
    if (!again) throw new Error('nothing was claimed');
    await store.recordSupplierOrderProgress(
      quietStep(again.supplierOrder.id, OWNER, at(70_100), { consumedChargeIds: ['CH-1'] }),
    );
    expect((await supplierOrderOf(alpha, one)).notifiedChargeIds).toEqual([]);
  });

  it('when a step ends the supplier order, then it keeps no notified id, even one that arrived during the step', async () => {
    const { one } = world.sources;
    const alpha = await placeOrder(store, world, 'Alpha', [one]);
    await store.hurrySupplierOrders(one, null, at(100), 'CH-1');
    const [claim] = await store.claimSupplierOrders(OWNER, at(200), LEASE_MS, 10);
    if (!claim) throw new Error('nothing was claimed');
    await store.hurrySupplierOrders(one, null, at(300), 'CH-2');

    await store.recordSupplierOrderProgress(
      quietStep(claim.supplierOrder.id, OWNER, at(400), {
        status: 'ended',
        nextCheckAt: null,
        readAt: at(250),
        consumedChargeIds: ['CH-1'],
        lines: [{ lineId: alpha.lines[0]?.id ?? '', status: 'completed', supplierStatus: 'completed' }],
      }),
    );

    const row = await supplierOrderOf(alpha, one);
    expect([row.status, row.notifiedChargeIds]).toEqual(['ended', []]);
    expect(await store.hurrySupplierOrders(one, null, at(500), 'CH-3')).toBe(0);
    expect((await supplierOrderOf(alpha, one)).notifiedChargeIds).toEqual([]);
  });
});
