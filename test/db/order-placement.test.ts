import { describe, expect, it } from 'vitest';
import type { NewQuoteLine } from '../../src/db/rows.js';
import type { Store } from '../../src/db/store.js';
import { countStoredRows, recordStatements, storedRows, testStore } from '../helpers/store.js';
import { instanceProductLine } from './quote-line-fixtures.js';
import {
  at,
  dataStatements,
  newOrderFor,
  type SupplierOrderWorld,
  supplierOrderWorldEach,
  T0,
} from './supplier-order-fixtures.js';

/*
 * `insertOrder` on this project's store (SQLite, then PostgreSQL): the record it returns is the one a read
 * gives and the one its `created` event carries, a quote with an open order is refused without a write (also
 * when two placements of it run at once), and PostgreSQL places an order in two statements however many
 * lines it has, without a transaction (SQLite, in-process, reads the order back instead). Issue 49: a quote
 * that had lines added since the caller read it is refused (`quote_changed`) with nothing written, and an
 * ordered quote takes no lines (`addQuoteLines` answers `quote_ordered`); `none` lines are completed as the
 * order is placed.
 */

/** An instance product's line to add to a quote. */
const catalogueLine = (productId: string, name: string): NewQuoteLine =>
  instanceProductLine(productId, name, { mrcMinor: 1_500, nrcMinor: 0 });

describe(`placing an order in the ${testStore} store`, () => {
  let store: Store;
  let world: SupplierOrderWorld;
  supplierOrderWorldEach((opened, made) => {
    store = opened;
    world = made;
  });

  it('when a quote is ordered, then the record returned is the one read and its event’s; ordered again, nothing is written', async () => {
    const { one, two } = world.sources;
    const input = await newOrderFor(store, world, 'Bakker', [one, null, two, one]);
    const { result: placed, sql } = await recordStatements(store, () => store.insertOrder(input));
    if (typeof placed === 'string') throw new Error(`refused: ${placed}`);

    expect(placed).toEqual(await store.findOrder(world.instanceId, placed.order.id));
    expect(placed.customer).toEqual({ id: input.customerId, name: 'Bakker' });
    expect(placed.lines.map((line) => [line.position, line.fulfilment, line.sourceId])).toEqual([
      [1, 'supplier', one],
      [2, 'manual', null],
      [3, 'supplier', two],
      [4, 'supplier', one],
    ]);
    const [event] = (await storedRows(store, 'outboxEvents', { subjectId: placed.order.id })) as {
      topic: string;
      version: number;
      payload: { kind: string; version: number; record: unknown };
    }[];
    expect(event).toMatchObject({
      topic: 'order:changed',
      version: 1,
      payload: { kind: 'created', version: 1 },
    });
    expect(event?.payload.record).toEqual(JSON.parse(JSON.stringify(placed)));
    expect(await countStoredRows(store, 'supplierOrders', { orderId: placed.order.id })).toBe(2);
    // The quote's row is read under a lock first (issue 49: no line added between the read and the insert).
    expect(dataStatements(sql)).toHaveLength(testStore === 'postgres' ? 3 : 8);
    if (testStore === 'postgres') expect(sql).toHaveLength(3);

    const again = await store.insertOrder({ ...input, now: new Date(input.now.getTime() + 1_000) });
    expect(again).toBe('quote_ordered');
    expect(await countStoredRows(store, 'orders', { quoteId: input.quoteId })).toBe(1);
    expect(await countStoredRows(store, 'outboxEvents', { subjectId: placed.order.id })).toBe(1);
  });

  it('when two placements of one quote run at once, then one order is made and the other is refused with nothing written', async () => {
    const { one, two } = world.sources;
    const input = await newOrderFor(store, world, 'Visser', [one, two, null]);
    const results = await Promise.all([
      store.insertOrder(input),
      store.insertOrder({ ...input, now: new Date(input.now.getTime() + 1) }),
    ]);
    const placed = results.filter((result) => typeof result !== 'string');
    expect(results.filter((result) => result === 'quote_ordered')).toHaveLength(1);
    expect(placed).toHaveLength(1);
    const [order] = (await storedRows(store, 'orders', { quoteId: input.quoteId })) as { id: string }[];
    expect(order?.id).toBe(placed[0]?.order.id);
    expect(await countStoredRows(store, 'orders', { quoteId: input.quoteId })).toBe(1);
    expect(await countStoredRows(store, 'supplierOrders', { orderId: order?.id as string })).toBe(2);
    expect(await countStoredRows(store, 'orderLines', { orderId: order?.id as string })).toBe(3);
    expect(await countStoredRows(store, 'outboxEvents', { topic: 'order:changed' })).toBe(1);
  });

  it('when lines were added to the quote since it was read, then the placement is refused as quote_changed and nothing is written; read again, it is placed', async () => {
    const { one } = world.sources;
    const input = await newOrderFor(store, world, 'Jansen', [one, null]);
    const added = await store.addQuoteLines({
      instanceId: world.instanceId,
      quoteId: input.quoteId,
      lines: [catalogueLine('ipr_router', 'Router rental')],
      now: at(60_000),
    });
    expect(added).toBe(1);
    const changed = await store.findQuote(world.instanceId, input.quoteId);
    expect(changed?.quote.updatedAt).toEqual(at(60_000));
    expect(input.quoteUpdatedAt).toEqual(T0);

    const refused = await store.insertOrder({ ...input, now: at(120_000) });

    expect(refused).toBe('quote_changed');
    expect(await countStoredRows(store, 'orders', { quoteId: input.quoteId })).toBe(0);
    expect(await countStoredRows(store, 'orderLines', { instanceId: world.instanceId })).toBe(0);
    expect(await countStoredRows(store, 'supplierOrders', { instanceId: world.instanceId })).toBe(0);
    expect(await countStoredRows(store, 'outboxEvents', { topic: 'order:changed' })).toBe(0);

    // Adding what the quote has already changes nothing, so a placement that read it before still goes.
    const again = await store.addQuoteLines({
      instanceId: world.instanceId,
      quoteId: input.quoteId,
      lines: [catalogueLine('ipr_router', 'Router rental')],
      now: at(180_000),
    });
    expect(again).toBe(0);
    const placed = await store.insertOrder({
      ...input,
      quoteUpdatedAt: changed?.quote.updatedAt as Date,
      now: at(240_000),
    });
    if (typeof placed === 'string') throw new Error(`refused: ${placed}`);
    expect(placed.order).toMatchObject({ quoteId: input.quoteId, status: 'pending', createdAt: at(240_000) });
    expect(await countStoredRows(store, 'orders', { quoteId: input.quoteId })).toBe(1);

    // Ordered, the quote takes no line: nothing is written, its updatedAt stays.
    const frozen = await store.addQuoteLines({
      instanceId: world.instanceId,
      quoteId: input.quoteId,
      lines: [catalogueLine('ipr_wifi', 'Managed Wi-Fi')],
      now: at(300_000),
    });
    expect(frozen).toBe('quote_ordered');
    const kept = await store.findQuote(world.instanceId, input.quoteId);
    expect(kept?.lines.map((line) => [line.position, line.productId])).toEqual([[1, 'ipr_router']]);
    expect(kept?.quote.updatedAt).toEqual(at(60_000));
  });

  it('when an order has none lines, then they are completed as it is placed and the order waits on the others; of none lines only, it is completed', async () => {
    const { one } = world.sources;
    const input = await newOrderFor(store, world, 'De Vries', [one, null, null]);
    const placedAt = at(90_000);
    const withFee = {
      ...input,
      lines: input.lines.map((line, index) =>
        index === 2 ? { ...line, name: 'Administration fee', fulfilment: 'none' as const } : line,
      ),
      now: placedAt,
    };

    const placed = await store.insertOrder(withFee);
    if (typeof placed === 'string') throw new Error(`refused: ${placed}`);

    expect(placed.order.status).toBe('pending');
    expect(
      placed.lines.map((line) => [
        line.fulfilment,
        line.status,
        line.completionDate,
        line.statusChangedAt,
        line.statusChangedByUserId,
        line.notice,
      ]),
    ).toEqual([
      ['supplier', 'pending', null, null, null, null],
      ['manual', 'pending', null, null, null, null],
      ['none', 'completed', placedAt, placedAt, null, null],
    ]);
    expect(placed.lines.map((line) => [line.sourceId, line.sourceName, line.sourceType])).toEqual([
      [one, `Source ${one}`, 'mef-sonata'],
      [null, null, null],
      [null, null, null],
    ]);
    expect(await store.findOrder(world.instanceId, placed.order.id)).toEqual(placed);
    // One supplier order, for the supplier line only.
    expect(await countStoredRows(store, 'supplierOrders', { orderId: placed.order.id })).toBe(1);

    const feesOnly = await newOrderFor(store, world, 'Smit', [null, null]);
    const completed = await store.insertOrder({
      ...feesOnly,
      lines: feesOnly.lines.map((line) => ({ ...line, fulfilment: 'none' as const })),
      now: placedAt,
    });
    if (typeof completed === 'string') throw new Error(`refused: ${completed}`);
    expect(completed.order.status).toBe('completed');
    expect(completed.lines.map((line) => [line.status, line.completionDate])).toEqual([
      ['completed', placedAt],
      ['completed', placedAt],
    ]);
    expect(await countStoredRows(store, 'supplierOrders', { orderId: completed.order.id })).toBe(0);
  });
});
