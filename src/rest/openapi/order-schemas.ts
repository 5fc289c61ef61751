import { z } from 'zod';
import {
  lineCancellationStates,
  orderLineFulfilments,
  orderLineStatuses,
  orderStatuses,
} from '../../db/values.js';
import { about, named } from './registry.js';
import { id, paginationSchema, productSourceSchema, timestamp } from './responses.js';

// The order documents of `src/rest/order-documents.ts` (issue "Orders, part 1", item 7) and the bodies that
// wrap them.

/** A date the seller gave, shown like the other timestamps. */
const sellerDate = () =>
  about(
    'ISO 8601 timestamp with UTC offset, to the second (`2026-11-22T10:04:50+00:00`): the instant the seller ' +
      'gave, in UTC. Null when the seller gave none, or when the stored value is not a date-time (a seller’s ' +
      'answers are checked to hold one when read).',
    z.iso.datetime({ offset: true, precision: 0 }).nullable(),
    '2026-11-22T10:04:50+00:00',
  );

export const orderChargeSchema = named(
  'OrderCharge',
  'A charge the seller asks to be accepted or declined (MEF `MEFProductOrderCharge`), as last read.',
  z.strictObject({
    id: id(),
    state: about(
      'MEF’s charge state, verbatim (`awaitingResponse`, `accepted`, `declined`, `timeout`, …).',
      z.string(),
    ),
    response_due_date: sellerDate(),
    items: z.array(
      z.strictObject({
        id: id(),
        price_type: about('MEF `priceType`: `recurring`, `nonRecurring`, `usageBased`.', z.string()),
        price_category: z.string().nullable(),
        amount: about("A decimal number in the currency's major unit, before tax.", z.number()),
        currency: about('ISO 4217 currency code.', z.string().regex(/^[A-Z]{3}$/), 'EUR'),
        blocking: about('Whether the item waits for the answer.', z.boolean()),
        state: z.string(),
      }),
    ),
  }),
);

export const orderLineSchema = named(
  'OrderLine',
  'A quote line ordered: `supplier` lines are ordered from their seller by the gateway and follow its ' +
    'progress; `manual` lines are moved by an admin once done by other means; `none` lines (an instance ' +
    'product that needs no delivery, e.g. a fee) are `completed` when the order is placed and never waited for.',
  z.strictObject({
    id: id(),
    quote_line_id: id(),
    name: z.string(),
    source: about(
      'The source it is ordered from, as its quote line named it; null for the instance’s own products.',
      productSourceSchema.nullable(),
    ),
    fulfilment: z.enum(orderLineFulfilments),
    status: z.enum(orderLineStatuses),
    supplier_status: about(
      'The seller’s own item state (MEF), verbatim; null for manual lines.',
      z.string().nullable(),
    ),
    supplier_order_id: about('The seller’s order id, once placed.', z.string().nullable()),
    supplier_item_id: z.string().nullable(),
    expected_completion_date: timestamp().nullable(),
    completion_date: timestamp().nullable(),
    inventory_product_id: about(
      'The delivered product in the seller’s inventory (MEF 116).',
      z.string().nullable(),
    ),
    inventory_product_status: z.string().nullable(),
    milestones: z.array(
      z.strictObject({ name: z.string(), date: sellerDate(), description: z.string().nullable() }),
    ),
    charges: z.array(orderChargeSchema),
    price_change: about(
      'Set when the seller’s quote had expired and its new quote changed the purchase price: the line is ' +
        'then not ordered and fails with `SUPPLIER_PRICE_CHANGED`; the purchase prices the customer’s quote ' +
        'was made from and the new ones, in major units.',
      z
        .strictObject({
          quoted_mrc: z.number(),
          quoted_nrc: z.number(),
          new_mrc: z.number(),
          new_nrc: z.number(),
          currency: z.string(),
        })
        .nullable(),
    ),
    cancellation: about(
      'The line’s cancellation once one was asked: `requested` (not sent yet), `acknowledged`, ' +
        '`assessing_charge` (a cancellation charge awaits an answer), `done` (the line is `cancelled`), ' +
        '`declined` or `rejected` (the line goes on; `message` says why).',
      z.strictObject({ state: z.enum(lineCancellationStates), message: z.string().nullable() }).nullable(),
    ),
    error: z.strictObject({ code: z.string(), message: z.string() }).nullable(),
    notice: about(
      'What keeps the line waiting on its seller although its own state was read; null when nothing does, ' +
        'cleared once it passes. `CHARGE_LIST_UNAVAILABLE`: the item is `held` for a charge the seller’s ' +
        '`GET /charge` cannot list; `CHARGE_UNAVAILABLE`: a charge of the item cannot be read; ' +
        '`INVENTORY_UNAVAILABLE`: the item completed but its delivered product cannot be read yet; ' +
        '`ORDER_LOOKUP_UNAVAILABLE`: an order that may have been sent cannot be looked up, so it is not sent ' +
        'again; `CANCELLATION_UNAVAILABLE`: a cancellation cannot go on at the supplier.',
      z.strictObject({ code: z.string(), message: z.string() }).nullable(),
    ),
    note: about('The note of the last manual move.', z.string().nullable()),
    status_changed_at: about('When the line was last moved by hand.', timestamp().nullable()),
    status_changed_by_user_id: about(
      'The user who last moved the line by hand (manual lines); null while nobody did.',
      id().nullable(),
    ),
    _document_type: about('Constant `order_line`: what this document is.', z.literal('order_line')),
  }),
);

export const orderSchema = named(
  'Order',
  'An order of a quote, one line per quote line. `completed`, `partially_completed`, `failed` and ' +
    '`cancelled` are final.',
  z.strictObject({
    id: id(),
    quote_id: id(),
    customer: z.strictObject({ id: id(), name: z.string(), _document_type: z.literal('customer') }),
    status: z.enum(orderStatuses),
    lines: z.array(orderLineSchema),
    requested_completion_date: timestamp(),
    cancellation: about(
      'The reseller’s cancellation, once asked (`POST /orders/{id}/cancel`).',
      z.strictObject({ reason: z.string(), requested_at: timestamp() }).nullable(),
    ),
    cancellation_charges: about(
      'Charges the sellers ask for cancelling their orders (MEF 123: on the `CancelProductOrder`); answered ' +
        'with `POST /orders/{id}/cancellation-charges/{charge_id}/accept` or `…/decline`.',
      z.array(orderChargeSchema.extend({ source_id: id() })),
    ),
    created_at: timestamp(),
    updated_at: timestamp(),
    _document_type: about('Constant `order`: what this document is.', z.literal('order')),
  }),
);

export const orderBody = named(
  'OrderResponse',
  'One order with its lines.',
  z.strictObject({ data: orderSchema }),
);

export const orderListBody = named(
  'OrderList',
  'A page of orders, newest first.',
  z.strictObject({ data: z.array(orderSchema), pagination: paginationSchema }),
);
