import { describe, expect, it, vi } from 'vitest';
import type { ClaimedSupplierOrder, SupplierOrderRow } from '../../src/db/rows.js';
import type { Store } from '../../src/db/store.js';
import { DependencyUnavailableError } from '../../src/errors.js';
import { createLogger } from '../../src/logger.js';
import { OrderWorker, type SupplierOrderStep } from '../../src/ordering/worker.js';
import {
  placeOrder,
  type SupplierOrderWorld,
  supplierOrderWorldEach,
} from '../db/supplier-order-fixtures.js';
import { storedRows, testStore } from '../helpers/store.js';

/*
 * The order worker's claiming ahead (`claimAhead`), on this project's store: it claims the free slots and
 * a few more, starts a held supplier order the moment a slot frees (not after the next claim), and gives
 * what it holds back, unchanged and due at once, when it stops. And its leases are each claim's own: a
 * late give-back of an earlier claim leaves a later claim of the same worker alone (issue 48).
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
  let store: Store;
  let world: SupplierOrderWorld;
  supplierOrderWorldEach((opened, made) => {
    store = opened;
    world = made;
  });

  /** A step that changes nothing shown, due again in an hour. */
  const quiet = (claimed: Pick<ClaimedSupplierOrder, 'supplierOrder'>): SupplierOrderStep => ({
    status: 'following',
    sellerOrderId: `seller-${claimed.supplierOrder.id}`,
    sellerState: 'inProgress',
    nextCheckAt: new Date(Date.now() + 3_600_000),
    errorCode: null,
    errorMessage: null,
    lines: [],
  });

  /**
   * A worker on the store whose steps wait for the test (`finish`), or end quietly when aborted; `claims`
   * lists each claim's limit, and `claimGate` (when given) holds every claim after the first.
   */
  const stepWorker = (options: {
    concurrency: number;
    claimAhead: number;
    clock?: { now(): Date };
    claimGate?: Promise<void>;
  }) => {
    const claims: number[] = [];
    let changes = 0;
    const started: string[] = [];
    const finish = new Map<string, (step: SupplierOrderStep) => void>();
    const worker = new OrderWorker({
      db: {
        claimSupplierOrders: async (owner, now, leaseMs, limit) => {
          claims.push(limit);
          if (claims.length > 1) await options.claimGate;
          return store.claimSupplierOrders(owner, now, leaseMs, limit);
        },
        recordSupplierOrderProgress: (progress) => store.recordSupplierOrderProgress(progress),
        markSupplierOrderPosting: (...args) => store.markSupplierOrderPosting(...args),
        markSupplierOrderCancelPosting: (...args) => store.markSupplierOrderCancelPosting(...args),
        ping: () => store.ping(),
      },
      clock: options.clock ?? { now: () => new Date() },
      logger: createLogger('silent'),
      owner: 'worker-ahead',
      leaseMs: LEASE_MS,
      concurrency: options.concurrency,
      claimAhead: options.claimAhead,
      idlePollMs: 3_600_000,
      // As the event bus does: the relay's nudge also reaches the worker's own `wake`.
      onChanges: () => {
        changes += 1;
        worker.wake();
      },
      step: (claimed, signal) =>
        new Promise<SupplierOrderStep>((resolve) => {
          started.push(claimed.supplierOrder.id);
          finish.set(claimed.supplierOrder.id, resolve);
          signal.addEventListener('abort', () => resolve(quiet(claimed)));
        }),
    });
    const end = (id: string | undefined, step?: SupplierOrderStep) =>
      finish.get(id as string)?.(step ?? quiet({ supplierOrder: { id } as SupplierOrderRow }));
    return { worker, claims, started, end, changes: () => changes };
  };

  it('when a slot frees while the next claim is under way, then a held supplier order starts; on stop the held ones are given back due', async () => {
    const { one, two, three } = world.sources;
    await placeOrder(store, world, 'Bakker', [one, two, three]);
    await placeOrder(store, world, 'Visser', [one, two, three]);
    const secondClaim = gate();
    const { worker, claims, started, end } = stepWorker({
      concurrency: 2,
      claimAhead: 2,
      claimGate: secondClaim.opened,
    });
    const rowsBefore = (await storedRows(store, 'supplierOrders')) as SupplierOrderRow[];
    expect(rowsBefore).toHaveLength(6);

    worker.start();
    await vi.waitFor(() => expect(started).toHaveLength(2));
    // Two free slots and two ahead.
    expect(claims).toEqual([4]);

    end(started[0]);
    // The slot it frees takes a held one at once, while the claim it also asks for waits.
    await vi.waitFor(() => expect(started).toHaveLength(3));
    await vi.waitFor(() => expect(claims).toHaveLength(2));
    // No slot is free (two steps run); one is held (the fourth), so one more is claimed ahead.
    expect(claims[1]).toBe(1);

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

  it('when a held supplier order waited half its lease, then it is given back and the oldest due one steps instead', async () => {
    const { one, two, three } = world.sources;
    await placeOrder(store, world, 'Bakker', [one, two, three]);
    const due = ((await storedRows(store, 'supplierOrders')) as SupplierOrderRow[])
      .map((row) => row.id)
      .sort((a, b) => (Buffer.from(a) < Buffer.from(b) ? -1 : 1));
    let now = Date.now();
    const { worker, claims, started, end } = stepWorker({
      concurrency: 1,
      claimAhead: 1,
      clock: { now: () => new Date(now) },
    });
    worker.start();
    await vi.waitFor(() => expect(started).toEqual([due[0]]));
    expect(claims).toEqual([2]);

    now += LEASE_MS / 2 + 1_000;
    end(due[0]);
    // The second was held too long: back (due from now), so the third, due since the order, goes first.
    await vi.waitFor(() => expect(started).toEqual([due[0], due[2]]));
    // Given back, then claimed ahead again (its lease from the later time), by the claim that took the third
    // or, when its release was written after that claim, by the next.
    await vi.waitFor(async () => {
      const [held] = (await storedRows(store, 'supplierOrders', {
        id: due[1] as string,
      })) as SupplierOrderRow[];
      expect(held?.leaseExpiresAt?.getTime()).toBe(now + LEASE_MS);
    });
    expect(started).toEqual([due[0], due[2]]);
    await worker.stop();
  });

  it('when a claim took fewer than it asked for, then ended steps claim no more (their own events included) until another write wakes the worker', async () => {
    const { one, two, three } = world.sources;
    await placeOrder(store, world, 'Bakker', [one, two, three]);
    const { worker, claims, started, end, changes } = stepWorker({ concurrency: 4, claimAhead: 1 });
    worker.start();
    await vi.waitFor(() => expect(started).toHaveLength(3));
    // Four free slots and one ahead; three were due.
    expect(claims).toEqual([5]);

    // Each step acknowledges its lines: the order changes and its event is written (`onChanges`).
    const claimed = await Promise.all(
      started.map(async (id) => {
        const [row] = (await storedRows(store, 'orderLines', { supplierOrderRef: id })) as { id: string }[];
        return { id, lineId: row?.id as string };
      }),
    );
    for (const { id, lineId } of claimed) {
      end(id, {
        ...quiet({ supplierOrder: { id } as SupplierOrderRow }),
        lines: [{ lineId, supplierStatus: 'acknowledged' }],
      });
    }
    await vi.waitFor(() => expect(changes()).toBe(3));
    // A claim asked for by a freed slot or by an echoed event would be under way after one more turn.
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(claims).toEqual([5]);

    // Another's write (a placement) wakes it: the new supplier orders are claimed and stepped.
    await placeOrder(store, world, 'Visser', [one, two]);
    worker.wake();
    await vi.waitFor(() => expect(started).toHaveLength(5));
    expect(claims).toEqual([5, 5]);
    await worker.stop();
  });

  it('when a step the store outage interrupted gives its supplier order back after its own worker claimed it again, then the late give-back is fenced out and the order is stepped once at a time', async () => {
    await placeOrder(store, world, 'Bakker', [world.sources.one]);
    const [row] = (await storedRows(store, 'supplierOrders')) as SupplierOrderRow[];
    const id = row?.id as string;
    let now = Date.now();
    let storeUp = true;
    const owners: string[] = [];
    const started: string[] = [];
    const giveBack = gate();
    let givenBack: boolean | null = null;
    let claimsBeforeGiveBack = 0;
    const worker = new OrderWorker({
      db: {
        claimSupplierOrders: async (owner, at, leaseMs, limit) => {
          if (!storeUp) throw new DependencyUnavailableError('store');
          owners.push(owner);
          return store.claimSupplierOrders(owner, at, leaseMs, limit);
        },
        recordSupplierOrderProgress: async (progress) => {
          // The first claim's give-back waits until the worker claimed the supplier order again.
          if (progress.owner !== owners[0]) return store.recordSupplierOrderProgress(progress);
          await giveBack.opened;
          claimsBeforeGiveBack = owners.length;
          const record = await store.recordSupplierOrderProgress(progress);
          givenBack = record !== undefined;
          return record;
        },
        markSupplierOrderPosting: async () => {
          // The store goes down as the first step marks its placement.
          storeUp = false;
          throw new DependencyUnavailableError('store');
        },
        markSupplierOrderCancelPosting: (...args) => store.markSupplierOrderCancelPosting(...args),
        ping: async () => storeUp,
      },
      clock: { now: () => new Date(now) },
      logger: createLogger('silent'),
      owner: 'worker-late',
      leaseMs: LEASE_MS,
      concurrency: 2,
      claimAhead: 0,
      idlePollMs: 3_600_000,
      onChanges: () => {},
      step: async (claimed, signal, context) => {
        started.push(claimed.supplierOrder.id);
        if (started.length === 1) await context.markPosting();
        return new Promise<SupplierOrderStep>((resolve) => {
          signal.addEventListener('abort', () => resolve(quiet(claimed)));
        });
      },
    });
    worker.start();
    await vi.waitFor(() => expect([started, storeUp]).toEqual([[id], false]));
    // During the outage the worker looks for due supplier orders (and waits for the store), and the first
    // claim's lease runs out.
    worker.wake();
    now += LEASE_MS + 1_000;
    storeUp = true;
    // Back: the same worker claims the supplier order again and steps it, while the first claim's
    // give-back still waits.
    await vi.waitFor(() => expect(started).toEqual([id, id]));
    expect(owners).toEqual(['worker-late:1', 'worker-late:2']);
    giveBack.open();
    await vi.waitFor(() => expect(givenBack).toBe(false));
    // The give-back asks for a claim, which finds nothing due: the second claim still holds the order.
    await vi.waitFor(() => expect(owners.length).toBeGreaterThan(claimsBeforeGiveBack));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(started).toEqual([id, id]);
    const [held] = (await storedRows(store, 'supplierOrders', { id })) as SupplierOrderRow[];
    expect([held?.leaseOwner, held?.leaseExpiresAt?.getTime()]).toEqual(['worker-late:2', now + LEASE_MS]);
    await worker.stop();
  });
});
