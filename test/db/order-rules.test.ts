import { describe, expect, it } from 'vitest';
import type { OrderLineRow } from '../../src/db/rows.js';
import { lineChanges, orderStatusOf } from '../../src/db/shared/orders.js';
import type { OrderLineStatus } from '../../src/db/values.js';

/* The order rules both stores share: an order's status from its lines, and what a step changes on a line. */

const lines = (...statuses: OrderLineStatus[]) => statuses.map((status) => ({ status }));

describe('orderStatusOf', () => {
  it.each([
    [[], 'pending'],
    [['pending', 'pending'], 'pending'],
    [['submitted', 'pending'], 'submitted'],
    [['submitted', 'in_progress'], 'in_progress'],
    [['completed', 'pending'], 'in_progress'],
    [['completed', 'completed'], 'completed'],
    [['completed', 'failed'], 'partially_completed'],
    [['completed', 'cancelled'], 'partially_completed'],
    [['failed', 'failed'], 'failed'],
    [['failed', 'cancelled'], 'failed'],
    [['cancelled', 'cancelled'], 'cancelled'],
  ] as [OrderLineStatus[], string][])('lines %j make the order %s', (statuses, expected) => {
    expect(orderStatusOf(lines(...statuses))).toBe(expected);
  });
});

describe('lineChanges', () => {
  const line = {
    id: 'orl_1',
    status: 'in_progress',
    supplierStatus: 'inProgress',
    expectedCompletionDate: new Date('2026-12-01T00:00:00Z'),
    milestones: [{ name: 'siteSurveyCompleted', date: '2026-11-28T10:00:00Z', description: null }],
    charges: [],
  } as unknown as OrderLineRow;

  it('when a step reads what is stored (keys in another order, an equal date), then nothing changes', () => {
    expect(
      lineChanges(line, {
        lineId: 'orl_1',
        status: 'in_progress',
        expectedCompletionDate: new Date('2026-12-01T00:00:00.000Z'),
        milestones: [{ description: null, date: '2026-11-28T10:00:00Z', name: 'siteSurveyCompleted' }],
        charges: [],
      }),
    ).toBeNull();
  });

  it('when a step reads a new state and milestone, then only those fields are written', () => {
    const milestones = [
      ...line.milestones,
      { name: 'installed', date: '2026-11-29T10:00:00Z', description: 'Done' },
    ];
    expect(
      lineChanges(line, { lineId: 'orl_1', status: 'in_progress', supplierStatus: 'held', milestones }),
    ).toEqual({ supplierStatus: 'held', milestones });
  });
});
