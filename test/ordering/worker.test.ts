import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { openStore } from '../../src/db/open.js';
import type { ClaimedSupplierOrder, SupplierOrderRow } from '../../src/db/rows.js';
import type { Store } from '../../src/db/store.js';
import { createLogger } from '../../src/logger.js';
import { OrderWorker, type SupplierOrderStep } from '../../src/ordering/worker.js';
import { placeOrder, type SupplierOrderWorld, supplierOrderWorld } from '../db/supplier-order-fixtures.js';
import { tempDatabasePath } from '../helpers/app.js';
import { storedRows, testStore } from '../helpers/store.js';

/*
 * The order worker's claiming ahead (`claimAhead`), on this project's store: it claims the free slots and
 * a few more, starts a held supplier order the moment a slot frees (not after the next claim), and gives
 * what it holds back, unchanged and due at once, when it stops.
 */

const LEASE_MS = 30_000;

/** A gate a test opens when it wants. */
function gate<T = void>() {
  let open!: (value: T) => void;
  const opened = new Promise<T>((resolve) => {
    open = resolve;
  });
  return { opened, open };
}

describe(`the order worker claiming ahead, in the ${testStore} store`, () => {
  let database: { path: string; remove(): void };
  let store: Store;
  let world: SupplierOrderWorld;

  beforeEach(async () => {
    database = tempDatabasePath();
    store = await openStore(database.path, { poolSize: 4, logger: createLogger('silent') });
    world = await supplierOrderWorld(store);
  });
  afterEach(async () => {
    await store?.close();
    database?.remove();
  });

  it('when a slot frees while the next claim is under way, then a held supplier order starts; on stop the held ones are given back due', async () => {
    const { one, two, three } = world.sources;
    await placeOrder(store, world, 'Bakker', [one, two, three]);
    await placeOrder(store, world, 'Visser', [one, two, three]);
    const limits: number[] = [];
    const secondClaim = gate();
    const started: string[] = [];
    const finish = new Map<string, (step: SupplierOrderStep) => void>();
    const quiet = (claimed: ClaimedSupplierOrder): SupplierOrderStep => ({
      status: 'following',
      sellerOrderId: `seller-${claimed.supplierOrder.id}`,
      sellerState: 'inProgress',
      nextCheckAt: new Date(Date.now() + 3_600_000),
      errorCode: null,
      errorMessage: null,
      lines: [],
    });
    const worker = new OrderWorker({
      db: {
        claimSupplierOrders: async (owner, now, leaseMs, limit) => {
          limits.push(limit);
          if (limits.length > 1) await secondClaim.opened;
          return store.claimSupplierOrders(owner, now, leaseMs, limit);
        },
        recordSupplierOrderProgress: (progress) => store.recordSupplierOrderProgress(progress),
        markSupplierOrderPosting: (...args) => store.markSupplierOrderPosting(...args),
        markSupplierOrderCancelPosting: (...args) => store.markSupplierOrderCancelPosting(...args),
      },
      clock: { now: () => new Date() },
      logger: createLogger('silent'),
      owner: 'worker-ahead',
      leaseMs: LEASE_MS,
      concurrency: 2,
      claimAhead: 2,
      idlePollMs: 3_600_000,
      onChanges: () => {},
      step: (claimed, signal) =>
        new Promise<SupplierOrderStep>((resolve) => {
          started.push(claimed.supplierOrder.id);
          finish.set(claimed.supplierOrder.id, resolve);
          signal.addEventListener('abort', () => resolve(quiet(claimed)));
        }),
    });
    const rowsBefore = (await storedRows(store, 'supplierOrders')) as SupplierOrderRow[];
    const due = [...rowsBefore].sort((a, b) => (a.id < b.id ? -1 : 1));
    expect(due).toHaveLength(6);

    worker.start();
    await vi.waitFor(() => expect(started).toHaveLength(2));
    // Two free slots and two ahead.
    expect(limits).toEqual([4]);

    const [first] = started;
    finish.get(first as string)?.(quiet({ supplierOrder: { id: first } } as ClaimedSupplierOrder));
    // The slot it frees takes a held one at once, while the claim it also asks for waits.
    await vi.waitFor(() => expect(started).toHaveLength(3));
    await vi.waitFor(() => expect(limits).toHaveLength(2));
    // No slot is free (two steps run); one is held (the fourth), so one more is claimed ahead.
    expect(limits[1]).toBe(1);

    const stopping = worker.stop();
    secondClaim.open();
    await stopping;

    // What it held (the fourth) and claimed last (the fifth) was never stepped: both are back, unleased and
    // due, beside the sixth that no claim reached.
    const rows = (await storedRows(store, 'supplierOrders')) as SupplierOrderRow[];
    const stepped = new Set(started);
    const given = rows.filter((row) => !stepped.has(row.id));
    expect(given).toHaveLength(3);
    for (const row of given) {
      const before = rowsBefore.find((each) => each.id === row.id) as SupplierOrderRow;
      expect(row).toMatchObject({
        leaseOwner: null,
        leaseExpiresAt: null,
        status: before.status,
        sellerOrderId: before.sellerOrderId,
        sellerState: before.sellerState,
        errorCode: before.errorCode,
        errorMessage: before.errorMessage,
      });
      expect(row.nextCheckAt?.getTime()).toBeLessThanOrEqual(Date.now());
    }
    const reclaimed = await store.claimSupplierOrders('worker-next', new Date(), LEASE_MS, 10);
    expect(reclaimed.map((claim) => claim.supplierOrder.id).sort()).toEqual(
      given.map((row) => row.id).sort(),
    );
  });
});
