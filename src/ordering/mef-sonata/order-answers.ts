import { z } from 'zod';
import { parseAnswer } from '../../gathering/sources/mef-sonata/answers.js';
import { isCurrencyCode, toMinorUnits } from '../../money.js';

/*
 * The parts of a Sonata seller's ordering answers the buyer reads: MEF 123 Product Order Management 10.0.0
 * `ProductOrder`, `ProductOrder_Find` and `MEFProductOrderCharge`, MEF 116 Product Inventory 7.0.2
 * `MEFProduct`. Only what the views below carry is checked; everything else is ignored, as the documents
 * allow sellers to add.
 */

const id = z.string().min(1).max(200);
const text = (max: number) => z.string().max(max);
const dateTime = z.iso.datetime({ offset: true });

/** MEF 123 `MEFProductOrderStateType`. */
export const productOrderStates = [
  'acknowledged',
  'assessingCancellation',
  'cancelled',
  'completed',
  'failed',
  'held.assessingCharge',
  'inProgress',
  'partial',
  'pending.assessingModification',
  'pendingCancellation',
  'rejected',
] as const;
/** A Product Order's state. */
export type ProductOrderState = (typeof productOrderStates)[number];

/** MEF 123 `MEFProductOrderItemStateType`. */
export const productOrderItemStates = [
  'acknowledged',
  'cancelled',
  'completed',
  'failed',
  'held',
  'inProgress',
  'pending',
  'rejected',
  'rejected.validated',
  'rejected.unassessed',
] as const;
/** A Product Order Item's state. */
export type ProductOrderItemState = (typeof productOrderItemStates)[number];

/** MEF 123 `MEFProductOrderChargeStateType`. */
export const chargeStates = ['awaitingResponse', 'completed', 'timeout', 'withdrawnBySeller'] as const;
/** MEF 123 `MEFProductOrderChargeItemStateType`. */
export const chargeItemStates = [
  'awaitingResponse',
  'acceptedByBuyer',
  'declinedByBuyer',
  'withdrawnBySeller',
] as const;

/** MEF 116 `MEFProductStatusType`. */
export const productStatuses = [
  'active',
  'active.pendingChange',
  'cancelled',
  'pendingActive',
  'pendingTerminate',
  'suspended',
  'suspendedPendingTerminate',
  'terminated',
] as const;

/** MEF 123 `TerminationError`: why an item was rejected or failed. */
const terminationError = z.looseObject({
  code: text(100).optional(),
  propertyPath: text(1000).optional(),
  value: text(1000).optional(),
});

/** MEF 123 `ProductOrderItem` (the parts {@link SonataOrderItemView} carries). */
const productOrderItemSchema = z.looseObject({
  id,
  state: z.enum(productOrderItemStates),
  expectedCompletionDate: dateTime.optional(),
  completionDate: dateTime.optional(),
  milestone: z
    .array(z.looseObject({ name: text(200).min(1), date: dateTime, note: text(2000).optional() }))
    .max(1000)
    .optional(),
  charge: z.array(z.looseObject({ id })).max(1000).optional(),
  product: z.looseObject({ id: id.optional() }).optional(),
  terminationError: z.array(terminationError).max(100).optional(),
  stateChange: z
    .array(
      z.looseObject({
        state: z.string().max(50).optional(),
        changeDate: dateTime.optional(),
        changeReason: text(2000).optional(),
      }),
    )
    .max(1000)
    .optional(),
});

/** MEF 123 `ProductOrder` (id, externalId, state, items). */
export const productOrderSchema = z.looseObject({
  id,
  externalId: text(200).optional(),
  state: z.enum(productOrderStates),
  productOrderItem: z.array(productOrderItemSchema).min(1).max(1000),
});

/** MEF 123 `ProductOrder_Find`: one entry of `GET /productOrder`. */
export const productOrderFindSchema = z.looseObject({
  id,
  externalId: text(200).optional(),
  orderDate: dateTime,
  state: z.enum(productOrderStates),
});
/** One parsed `ProductOrder_Find`. */
export type ProductOrderFound = z.infer<typeof productOrderFindSchema>;

/**
 * MEF 123 `Money` as exact integer minor units: `unit` an ISO 4217 code, `value` with no more decimals than
 * the currency has (both optional in the document, needed for an amount).
 */
const money = z
  .looseObject({
    unit: z.string().refine((unit) => isCurrencyCode(unit), 'must be an ISO 4217 currency code'),
    value: z.number(),
  })
  .transform((amount, ctx) => {
    const minor = toMinorUnits(amount.value, amount.unit);
    if (minor === null) {
      ctx.addIssue({
        code: 'custom',
        message: `has more decimals than ${amount.unit} allows`,
        input: amount,
      });
      return z.NEVER;
    }
    return { amountMinor: minor, currency: amount.unit };
  });

/** MEF 123 `MEFProductOrderCharge` (the parts {@link SonataChargeView} carries). */
export const chargeSchema = z.looseObject({
  id,
  state: z.enum(chargeStates),
  responseDueDate: dateTime.optional(),
  productOrder: z.looseObject({ productOrderId: id }).optional(),
  productOrderItem: z.looseObject({ productOrderId: id, productOrderItemId: id }).optional(),
  chargeItem: z
    .array(
      z.looseObject({
        id,
        priceType: z.enum(['recurring', 'nonRecurring', 'usageBased']),
        priceCategory: z
          .enum(['cancellation', 'construction', 'connection', 'disconnect', 'expedite', 'other'])
          .optional(),
        recurringChargePeriod: z.enum(['hour', 'day', 'week', 'month', 'year']).optional(),
        price: z.looseObject({ dutyFreeAmount: money }),
        blocking: z.boolean(),
        state: z.enum(chargeItemStates),
      }),
    )
    .max(100),
});

/** MEF 123 `MEFProductOrderCharge_Find`: one entry of `GET /charge`. */
export const chargeFindSchema = z.looseObject({
  id,
  state: z.enum(chargeStates),
  productOrder: z.looseObject({ productOrderId: id }).optional(),
  productOrderItem: z.looseObject({ productOrderId: id, productOrderItemId: id }).optional(),
});

/**
 * The ids of the Charges awaiting the buyer's answer for the order `sellerOrderId`, from the
 * `MEFProductOrderCharge_Find` list of `GET /charge` (the order matched here too: a seller may ignore the
 * filter).
 *
 * @throws {SourceError} `INVALID_RESPONSE` when it is not an array of them.
 */
export function awaitedChargeIds(body: unknown, sellerOrderId: string, what: string): string[] {
  return parseAnswer(z.array(chargeFindSchema).max(1000), body, what)
    .filter(
      (charge) =>
        charge.state === 'awaitingResponse' &&
        (charge.productOrder?.productOrderId ?? charge.productOrderItem?.productOrderId) === sellerOrderId,
    )
    .map((charge) => charge.id);
}

/** Only the ids of a Charge's items: enough to answer every one of them (MEF 123 R94, R95). */
export const chargeItemIdsSchema = z.looseObject({
  id,
  chargeItem: z.array(z.looseObject({ id })).max(100),
});

/** MEF 116 `MEFProduct` (id, status, start and termination dates). */
export const productSchema = z.looseObject({
  id,
  status: z.enum(productStatuses),
  startDate: dateTime.optional(),
  terminationDate: dateTime.optional(),
});

/** A Sonata Product Order as the buyer follows it (MEF 123 `ProductOrder`). */
export interface SonataOrderView {
  /** `id`: the seller's order id. */
  id: string;
  /** `externalId`: our supplier order id, as the seller echoes it; null when it does not. */
  externalId: string | null;
  /** `state`: a `MEFProductOrderStateType`. */
  state: ProductOrderState;
  /** `productOrderItem[]`, in the seller's order. */
  items: SonataOrderItemView[];
}

/** One item of a {@link SonataOrderView} (MEF 123 `ProductOrderItem`). */
export interface SonataOrderItemView {
  /** `id`: the buyer's item id, as sent. */
  id: string;
  /** `state`: a `MEFProductOrderItemStateType`. */
  state: ProductOrderItemState;
  /** `expectedCompletionDate` (ISO 8601, as sent); null when not given. */
  expectedCompletionDate: string | null;
  /** `completionDate` (ISO 8601, as sent); null until the item is `completed` (R48, R49). */
  completionDate: string | null;
  /** `milestone[]`: `name`, `date`, `note` (CR8). */
  milestones: { name: string; date: string; description: string | null }[];
  /** `charge[].id`: completed Charges with accepted items (`MEFProductOrderChargeRef`). */
  chargeIds: string[];
  /** `product.id`: the product in the seller's inventory, once it assigned one (R36). */
  productId: string | null;
  /**
   * Why the item was rejected or failed: each `terminationError` as `value` (else `code at propertyPath`),
   * joined by `; `; without any, the latest `stateChange[].changeReason` of a `failed`, `rejected*` or
   * `cancelled` item; else null.
   */
  errorMessage: string | null;
}

/** A Charge the seller asks the buyer to accept (MEF 123 `MEFProductOrderCharge`). */
export interface SonataChargeView {
  /** `id`. */
  id: string;
  /** `state`: a `MEFProductOrderChargeStateType` (`awaitingResponse` until answered). */
  state: string;
  /** `responseDueDate` (ISO 8601): unanswered by then, every item counts as declined (R96). */
  responseDueDate: string | null;
  /** `productOrder.productOrderId`, or that of `productOrderItem` (R88: one of the two is set). */
  productOrderId: string | null;
  /** `productOrderItem.productOrderItemId`, when the Charge is for one item. */
  productOrderItemId: string | null;
  items: SonataChargeItemView[];
}

/** One `chargeItem` of a {@link SonataChargeView} (MEF 123 `MEFProductOrderChargeItem`). */
export interface SonataChargeItemView {
  id: string;
  /** `priceType`: `recurring`, `nonRecurring` or `usageBased`. */
  priceType: string;
  /** `priceCategory` (`construction`, `connection`, …; required by R92, null when a seller leaves it out). */
  priceCategory: string | null;
  /** `recurringChargePeriod` of a `recurring` item (`month`, …; R93); null otherwise. */
  recurringChargePeriod: string | null;
  /** `price.dutyFreeAmount.value` in integer minor units of `currency` (before tax). */
  amountMinor: number;
  /** `price.dutyFreeAmount.unit` (ISO 4217). */
  currency: string;
  /** `blocking`: rejecting it fails the item (MEF 123 §6.12). */
  blocking: boolean;
  /** `state`: a `MEFProductOrderChargeItemStateType`. */
  state: string;
}

/** A product in the seller's inventory (MEF 116 `MEFProduct`). */
export interface SonataProductView {
  /** `id`. */
  id: string;
  /** `status`: a `MEFProductStatusType` (`active`, `pendingActive`, `terminated`, …). */
  status: string;
  /** `startDate` (ISO 8601): when the product was first active; null when not given. */
  startDate: string | null;
  /** `terminationDate` (ISO 8601); null while not terminated. */
  terminationDate: string | null;
}

const endedUnhappily = new Set([
  'failed',
  'rejected',
  'rejected.validated',
  'rejected.unassessed',
  'cancelled',
]);

function errorMessage(item: z.infer<typeof productOrderItemSchema>): string | null {
  const errors = (item.terminationError ?? [])
    .map((error) => error.value || [error.code, error.propertyPath].filter(Boolean).join(' at '))
    .filter((line) => line !== '');
  if (errors.length > 0) return errors.join('; ');
  if (!endedUnhappily.has(item.state)) return null;
  const reasons = (item.stateChange ?? []).filter((change) => change.changeReason);
  return reasons.at(-1)?.changeReason ?? null;
}

/**
 * A seller's `ProductOrder` (create answer or retrieve) as a {@link SonataOrderView}.
 *
 * @param what what was asked, for the message ("Product Order create").
 * @throws {SourceError} `INVALID_RESPONSE` naming the first place it breaks the document's shape.
 */
export function parseSonataOrder(body: unknown, what: string): SonataOrderView {
  const order = parseAnswer(productOrderSchema, body, what);
  return {
    id: order.id,
    externalId: order.externalId ?? null,
    state: order.state,
    items: order.productOrderItem.map((item) => ({
      id: item.id,
      state: item.state,
      expectedCompletionDate: item.expectedCompletionDate ?? null,
      completionDate: item.completionDate ?? null,
      milestones: (item.milestone ?? []).map((milestone) => ({
        name: milestone.name,
        date: milestone.date,
        description: milestone.note ?? null,
      })),
      chargeIds: (item.charge ?? []).map((charge) => charge.id),
      productId: item.product?.id ?? null,
      errorMessage: errorMessage(item),
    })),
  };
}

/**
 * The `ProductOrder_Find` list of `GET /productOrder`.
 *
 * @throws {SourceError} `INVALID_RESPONSE` when it is not an array of them.
 */
export function parseSonataOrderList(body: unknown, what: string): ProductOrderFound[] {
  return parseAnswer(z.array(productOrderFindSchema).max(1000), body, what);
}

/**
 * A seller's `MEFProductOrderCharge` as a {@link SonataChargeView}, amounts in minor units.
 *
 * @throws {SourceError} `INVALID_RESPONSE` naming the first place it breaks the document's shape (an amount
 *   without an ISO 4217 currency, or with more decimals than its currency has, included).
 */
export function parseSonataCharge(body: unknown, what: string): SonataChargeView {
  const charge = parseAnswer(chargeSchema, body, what);
  return {
    id: charge.id,
    state: charge.state,
    responseDueDate: charge.responseDueDate ?? null,
    productOrderId: charge.productOrder?.productOrderId ?? charge.productOrderItem?.productOrderId ?? null,
    productOrderItemId: charge.productOrderItem?.productOrderItemId ?? null,
    items: charge.chargeItem.map((item) => ({
      id: item.id,
      priceType: item.priceType,
      priceCategory: item.priceCategory ?? null,
      recurringChargePeriod: item.recurringChargePeriod ?? null,
      amountMinor: item.price.dutyFreeAmount.amountMinor,
      currency: item.price.dutyFreeAmount.currency,
      blocking: item.blocking,
      state: item.state,
    })),
  };
}

/**
 * A seller's inventory `MEFProduct` as a {@link SonataProductView}.
 *
 * @throws {SourceError} `INVALID_RESPONSE` naming the first place it breaks the document's shape.
 */
export function parseSonataProduct(body: unknown, what: string): SonataProductView {
  const product = parseAnswer(productSchema, body, what);
  return {
    id: product.id,
    status: product.status,
    startDate: product.startDate ?? null,
    terminationDate: product.terminationDate ?? null,
  };
}
