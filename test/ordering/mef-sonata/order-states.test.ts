import { fileURLToPath } from 'node:url';
import { parse } from '@readme/openapi-parser';
import { beforeAll, describe, expect, it } from 'vitest';
import type { OrderLineStatus } from '../../../src/db/values.js';
import {
  chargeItemStates,
  chargeStates,
  productOrderItemStates,
  productOrderStates,
  productStatuses,
} from '../../../src/ordering/mef-sonata/order-answers.js';
import { lineStatusOf, orderStatusOf } from '../../../src/ordering/mef-sonata/order-states.js';

/*
 * MEF item states → line statuses → order status. The enums are read from the vendored documents, so a
 * value the documents add and the code misses fails here.
 */

type Schemas = Record<string, { enum?: string[] }>;
let order: Schemas;
let inventory: Schemas;

const fixture = (relative: string) =>
  fileURLToPath(new URL(`../../fixtures/mef-sonata/productApi/${relative}`, import.meta.url));
const schemasOf = async (relative: string) =>
  ((await parse(fixture(relative))) as unknown as { components: { schemas: Schemas } }).components.schemas;

beforeAll(async () => {
  order = await schemasOf('order/productOrderManagement.api.yaml');
  inventory = await schemasOf('inventory/productInventoryManagement.api.yaml');
});

describe('the MEF enums the parsers accept', () => {
  it('when compared with the documents, then each is exactly the YAML enum', () => {
    expect([...productOrderItemStates]).toEqual(order.MEFProductOrderItemStateType?.enum);
    expect([...productOrderStates]).toEqual(order.MEFProductOrderStateType?.enum);
    expect([...chargeStates]).toEqual(order.MEFProductOrderChargeStateType?.enum);
    expect([...chargeItemStates]).toEqual(order.MEFProductOrderChargeItemStateType?.enum);
    expect([...productStatuses]).toEqual(inventory.MEFProductStatusType?.enum);
  });
});

describe('lineStatusOf', () => {
  it('when every MEFProductOrderItemStateType value is mapped, then each gives its line status', () => {
    const mapped = Object.fromEntries(
      (order.MEFProductOrderItemStateType?.enum ?? []).map((state) => [
        state,
        lineStatusOf(state as (typeof productOrderItemStates)[number]),
      ]),
    );
    expect(mapped).toEqual({
      acknowledged: 'submitted',
      cancelled: 'cancelled',
      completed: 'completed',
      failed: 'failed',
      held: 'in_progress',
      inProgress: 'in_progress',
      pending: 'in_progress',
      rejected: 'failed',
      'rejected.validated': 'failed',
      'rejected.unassessed': 'failed',
    });
  });
});

describe('orderStatusOf', () => {
  const cases: [OrderLineStatus[], string][] = [
    [[], 'pending'],
    [['pending'], 'pending'],
    [['pending', 'pending'], 'pending'],
    [['pending', 'submitted'], 'submitted'],
    [['submitted', 'submitted'], 'submitted'],
    [['submitted', 'in_progress'], 'in_progress'],
    [['pending', 'in_progress'], 'in_progress'],
    [['completed', 'submitted'], 'in_progress'],
    [['failed', 'pending'], 'in_progress'],
    [['completed', 'in_progress'], 'in_progress'],
    [['completed'], 'completed'],
    [['completed', 'completed'], 'completed'],
    [['completed', 'failed'], 'partially_completed'],
    [['completed', 'cancelled'], 'partially_completed'],
    [['completed', 'failed', 'cancelled'], 'partially_completed'],
    [['failed'], 'failed'],
    [['failed', 'failed'], 'failed'],
    [['failed', 'cancelled'], 'failed'],
    [['cancelled'], 'cancelled'],
    [['cancelled', 'cancelled'], 'cancelled'],
  ];
  it.each(cases)('when the lines are %j, then the order is %s', (lines, status) => {
    expect(orderStatusOf(lines)).toBe(status);
  });
});
