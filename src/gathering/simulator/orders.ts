import type {
  SupplierItemStatus,
  SupplierOrder,
  SupplierOrderRequest,
} from '../sources/supplier-contract.js';

/*
 * The orders a simulated supplier holds (docs/supplier-contract.md, "Ordering") and how they move: every item
 * `accepted`, one step later `in_progress`, one more step later `completed` (or `failed`). Nothing runs on a
 * timer: an order's state is worked out from the time it is read, so a stopped simulator leaves nothing behind.
 */

/** How a simulated order ends (the `order=` knob): its items `completed`, or `failed` with a reason. */
export type SimulatedOrderOutcome = 'complete' | 'fail';
/** What a simulated supplier makes of a cancellation (the `cancel=` knob). */
export type SimulatedCancelOutcome = 'accept' | 'decline';

/** Why a simulated item fails (`order=fail`). */
export const SIMULATED_FAILURE = 'The civil works permit was refused by the municipality.';
/** Why a simulated supplier declines a cancellation (`cancel=decline`). */
export const SIMULATED_DECLINE =
  'The installation is already scheduled; the order can no longer be cancelled.';

/** A cancellation the supplier was asked for. */
export interface SimulatedCancellation {
  /** When it was asked (ms since the epoch). */
  requestedAtMs: number;
  outcome: SimulatedCancelOutcome;
  /** Time from the request until an accepted cancellation is `done` (ms). */
  stepMs: number;
  /** The buyer's reason, as sent. */
  reason: string;
}

/** One order a simulated supplier holds. */
export interface SimulatedOrder {
  id: string;
  /** The supplier (source key) that holds it. */
  sourceKey: string;
  request: SupplierOrderRequest;
  /** When it was taken (ms since the epoch). */
  createdAtMs: number;
  outcome: SimulatedOrderOutcome;
  /** Time between two states of its items (ms). */
  stepMs: number;
  cancellation: SimulatedCancellation | null;
}

const FINAL: readonly SupplierItemStatus[] = ['completed', 'failed', 'cancelled'];
const iso = (ms: number) => new Date(ms).toISOString();

/** Where the items of an order stand at `atMs`, as if it were never cancelled. */
function plannedStatus(order: SimulatedOrder, atMs: number): SupplierItemStatus {
  const elapsed = atMs - order.createdAtMs;
  if (elapsed < order.stepMs) return 'accepted';
  if (elapsed < 2 * order.stepMs) return 'in_progress';
  return order.outcome === 'complete' ? 'completed' : 'failed';
}

/**
 * Where the items of an order stand at `nowMs`: as planned, except after an accepted cancellation — the
 * work stops when it was asked, and once it is done the items that had not ended are `cancelled`.
 */
function itemStatus(order: SimulatedOrder, nowMs: number): SupplierItemStatus {
  const { cancellation } = order;
  if (cancellation?.outcome !== 'accept') return plannedStatus(order, nowMs);
  const stopped = plannedStatus(order, Math.min(nowMs, cancellation.requestedAtMs));
  const done = nowMs >= cancellation.requestedAtMs + cancellation.stepMs;
  return done && !FINAL.includes(stopped) ? 'cancelled' : stopped;
}

/** An order's status from its items' (docs/supplier-contract.md, "Place an order"). */
function orderStatus(items: readonly SupplierItemStatus[]): SupplierOrder['status'] {
  if (!items.every((status) => FINAL.includes(status))) {
    return items.every((status) => status === 'accepted') ? 'accepted' : 'in_progress';
  }
  if (items.includes('completed')) return 'completed';
  return items.every((status) => status === 'cancelled') ? 'cancelled' : 'failed';
}

/** An order as the supplier answers it at `nowMs`. */
export function simulatedOrderView(order: SimulatedOrder, nowMs: number): SupplierOrder {
  const status = itemStatus(order, nowMs);
  const endsAtMs = order.createdAtMs + 2 * order.stepMs;
  const items = order.request.items.map((item, index) => ({
    id: item.id,
    offer_id: item.offer_id,
    status,
    ...(status === 'cancelled' ? {} : { expected_completion_date: iso(endsAtMs) }),
    ...(status === 'completed'
      ? { completion_date: iso(endsAtMs), product_id: `${order.id}-p${index + 1}` }
      : {}),
    ...(status === 'failed' ? { error: SIMULATED_FAILURE } : {}),
  }));
  const { cancellation } = order;
  return {
    id: order.id,
    external_id: order.request.external_id,
    status: orderStatus(items.map((item) => item.status)),
    items,
    cancellation: cancellation && {
      ...(cancellation.outcome === 'decline'
        ? { status: 'declined' as const, reason: SIMULATED_DECLINE }
        : {
            status:
              nowMs >= cancellation.requestedAtMs + cancellation.stepMs
                ? ('done' as const)
                : ('requested' as const),
          }),
    },
  };
}

/**
 * Asks to cancel an order at `nowMs`: the first request is kept (asking again changes nothing), unless every
 * item has ended already.
 *
 * @returns `'ended'` when every item has ended (the supplier answers 409), else the order with its cancellation.
 */
export function cancelSimulatedOrder(
  order: SimulatedOrder,
  nowMs: number,
  asked: Omit<SimulatedCancellation, 'requestedAtMs'>,
): SimulatedOrder | 'ended' {
  if (order.cancellation) return order;
  if (FINAL.includes(itemStatus(order, nowMs))) return 'ended';
  order.cancellation = { ...asked, requestedAtMs: nowMs };
  return order;
}
