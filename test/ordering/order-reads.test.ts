import { describe, expect, it } from 'vitest';
import type { OrderLineRow, SupplierLineProgress } from '../../src/db/rows.js';
import { nextOrderReadDelayMs } from '../../src/ordering/order-reads.js';

/* When a placed order is read next (a source's `orderPoll`): after as long as it has been quiet, or at its
   expected completion date when that is sooner. */

const pace = { initialDelayMs: 1_000, maxDelayMs: 300_000 };
const now = new Date('2026-12-01T12:00:00.000Z');
const ago = (ms: number) => new Date(now.getTime() - ms);
const ahead = (ms: number) => new Date(now.getTime() + ms);

/** A stored line of a placed supplier order, last changed at `updatedAt`. */
function line(id: string, updatedAt: Date, fields: Partial<OrderLineRow> = {}): OrderLineRow {
  return {
    id,
    status: 'submitted',
    supplierStatus: 'acknowledged',
    expectedCompletionDate: null,
    milestones: [],
    charges: [],
    updatedAt,
    ...fields,
  } as unknown as OrderLineRow;
}

/** A step that read the line as stored (nothing changed). */
const same = (stored: OrderLineRow): SupplierLineProgress => ({
  lineId: stored.id,
  status: stored.status,
  supplierStatus: stored.supplierStatus,
  expectedCompletionDate: stored.expectedCompletionDate,
  milestones: stored.milestones,
  charges: stored.charges,
});

describe('nextOrderReadDelayMs', () => {
  it('when the step changed a line (the placement answered), then the order is read after initialDelayMs', () => {
    const stored = line('orl_1', ago(50), { status: 'pending', supplierStatus: null });
    const placed = { ...same(stored), status: 'submitted' as const, supplierStatus: 'acknowledged' };

    expect(nextOrderReadDelayMs(pace, [stored], [placed], now)).toBe(1_000);
  });

  it('when nothing changed, then the wait is as long as the order has been quiet: doubling, within the bounds', () => {
    const waits = [400, 1_000, 2_000, 7_500, 299_000, 3_600_000].map((quiet) => {
      const stored = line('orl_1', ago(quiet));
      return nextOrderReadDelayMs(pace, [stored], [same(stored)], now);
    });

    expect(waits).toEqual([1_000, 1_000, 2_000, 7_500, 299_000, 300_000]);
  });

  it('when lines changed at different times, then the latest change counts', () => {
    const lines = [line('orl_1', ago(60_000)), line('orl_2', ago(4_000))];

    expect(nextOrderReadDelayMs(pace, lines, lines.map(same), now)).toBe(4_000);
  });

  it('when an open line is expected to complete before the next read, then the order is read at that date', () => {
    const validated = line('orl_1', ago(120_000), {
      status: 'in_progress',
      supplierStatus: 'inProgress',
      expectedCompletionDate: ahead(30_000),
    });

    expect(nextOrderReadDelayMs(pace, [validated], [same(validated)], now)).toBe(30_000);
  });

  it('when the date only this step read is sooner, then it counts too (and the change starts the wait over)', () => {
    const stored = line('orl_1', ago(120_000));
    const validated = {
      ...same(stored),
      status: 'in_progress' as const,
      supplierStatus: 'inProgress',
      expectedCompletionDate: ahead(400),
    };

    expect(nextOrderReadDelayMs(pace, [stored], [validated], now)).toBe(400);
  });

  it('when the expected date has passed, belongs to an ended line or comes after the wait, then it is not used', () => {
    const overdue = line('orl_1', ago(10_000), { expectedCompletionDate: ago(1) });
    const ended = line('orl_2', ago(10_000), {
      status: 'completed',
      supplierStatus: 'completed',
      expectedCompletionDate: ahead(500),
    });
    const later = line('orl_3', ago(10_000), { expectedCompletionDate: ahead(3_600_000) });
    const lines = [overdue, ended, later];

    expect(nextOrderReadDelayMs(pace, lines, lines.map(same), now)).toBe(10_000);
  });
});
