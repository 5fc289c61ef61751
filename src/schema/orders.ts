import type {
  OrderCharge as OrderChargeRow,
  OrderLineNotice as OrderLineNoticeRow,
  OrderLineRow,
  OrderRecord,
} from '../db/rows.js';
import {
  lineCancellationStates,
  orderLineFulfilments,
  orderLineStatuses,
  orderStatuses,
} from '../db/values.js';
import { toMajorUnits } from '../money.js';
import { sellerDateTime } from '../ordering/seller-dates.js';
import { findCustomerForViewer } from '../resolvers/customers.js';
import { respondToCharge } from '../resolvers/order-charges.js';
import { orderUpdates } from '../resolvers/order-events.js';
import {
  findOrderForViewer,
  findOrderLineForViewer,
  orderConnection,
  ordersOfQuote,
  placeOrder,
  updateManualOrderLine,
} from '../resolvers/orders.js';
import { productSourceOf } from '../resolvers/product-sources.js';
import { builder } from './builder.js';
import { ProductSource } from './common.js';
import { Customer } from './customers.js';
import { withoutNulls } from './inputs.js';
import { Quote } from './quotes.js';

/** A GraphQL enum of lower-case stored values, named in GraphQL's upper case. */
function upperEnum<const V extends string>(name: string, description: string, values: readonly V[]) {
  return builder.enumType(name, {
    description,
    values: Object.fromEntries(values.map((value) => [value.toUpperCase(), { value }])) as Record<
      Uppercase<V>,
      { value: V }
    >,
  });
}

const OrderStatus = upperEnum(
  'OrderStatus',
  'Where an order stands: PENDING until a line is submitted; COMPLETED, PARTIALLY_COMPLETED, FAILED and CANCELLED are final.',
  orderStatuses,
);
const OrderLineStatus = upperEnum(
  'OrderLineStatus',
  'Where an order line stands: PENDING (not sent yet), SUBMITTED (acknowledged), IN_PROGRESS (in progress or held), then COMPLETED, FAILED or CANCELLED.',
  orderLineStatuses,
);
const OrderLineFulfilment = upperEnum(
  'OrderLineFulfilment',
  'SUPPLIER: ordered from its seller by the gateway; MANUAL: ordered by the reseller, moved by an admin; NONE: nothing to deliver (a fee), COMPLETED when the order is placed.',
  orderLineFulfilments,
);

const OrderMilestone = builder.objectRef<OrderLineRow['milestones'][number]>('OrderMilestone').implement({
  description: 'A milestone the seller reported (MEF `MEFMilestone`).',
  fields: (t) => ({
    name: t.exposeString('name'),
    date: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'When, as the seller gave it; null if the stored value is not a date-time.',
      resolve: (m) => sellerDateTime(m.date),
    }),
    description: t.exposeString('description', { nullable: true }),
  }),
});

const OrderChargeItem = builder.objectRef<OrderChargeRow['items'][number]>('OrderChargeItem').implement({
  fields: (t) => ({
    id: t.exposeID('id'),
    priceType: t.exposeString('priceType'),
    priceCategory: t.exposeString('priceCategory', { nullable: true }),
    amount: t.float({ description: 'Major unit.', resolve: (i) => toMajorUnits(i.amountMinor, i.currency) }),
    currency: t.exposeString('currency'),
    blocking: t.exposeBoolean('blocking'),
    state: t.exposeString('state'),
  }),
});

export const OrderCharge = builder.objectRef<OrderChargeRow>('OrderCharge').implement({
  description: 'A charge the seller asks the buyer to accept or decline (MEF `MEFProductOrderCharge`).',
  fields: (t) => ({
    id: t.exposeID('id'),
    state: t.exposeString('state', { description: 'MEF’s charge state, verbatim.' }),
    responseDueDate: t.field({
      type: 'DateTime',
      nullable: true,
      description:
        'When an answer is due (MEF 123 R96); null when the seller gave none or the stored value is not a date-time.',
      resolve: (c) => sellerDateTime(c.responseDueDate),
    }),
    items: t.field({ type: [OrderChargeItem], resolve: (c) => c.items }),
  }),
});

const OrderLineError = builder.objectRef<{ code: string; message: string }>('OrderLineError').implement({
  fields: (t) => ({ code: t.exposeString('code'), message: t.exposeString('message') }),
});

const LineCancellationState = upperEnum(
  'LineCancellationState',
  'Where a line’s cancellation stands: REQUESTED (not sent yet), ACKNOWLEDGED, ASSESSING_CHARGE (a cancellation ' +
    'charge awaits an answer), DONE (the line is cancelled), DECLINED or REJECTED (the line goes on).',
  lineCancellationStates,
);

const OrderLineCancellation = builder
  .objectRef<NonNullable<OrderLineRow['cancellation']>>('OrderLineCancellation')
  .implement({
    fields: (t) => ({
      state: t.field({ type: LineCancellationState, resolve: (c) => c.state }),
      message: t.exposeString('message', {
        nullable: true,
        description: 'Why the seller declined or rejected it.',
      }),
    }),
  });

const OrderLinePriceChange = builder
  .objectRef<NonNullable<OrderLineRow['priceChange']>>('OrderLinePriceChange')
  .implement({
    description:
      'The purchase prices the customer’s quote was made from and the seller’s new ones (its quote had expired): ' +
      'the line was not ordered (SUPPLIER_PRICE_CHANGED). Major units.',
    fields: (t) => ({
      currency: t.exposeString('currency'),
      quotedMrc: t.float({ resolve: (c) => toMajorUnits(c.quotedMrcMinor, c.currency) }),
      quotedNrc: t.float({ resolve: (c) => toMajorUnits(c.quotedNrcMinor, c.currency) }),
      newMrc: t.float({ resolve: (c) => toMajorUnits(c.newMrcMinor, c.currency) }),
      newNrc: t.float({ resolve: (c) => toMajorUnits(c.newNrcMinor, c.currency) }),
    }),
  });

const OrderCancellation = builder
  .objectRef<{ reason: string; requestedAt: Date }>('OrderCancellation')
  .implement({
    fields: (t) => ({
      reason: t.exposeString('reason'),
      requestedAt: t.field({ type: 'DateTime', resolve: (c) => c.requestedAt }),
    }),
  });

const CancellationCharge = builder
  .objectRef<OrderRecord['order']['cancellationCharges'][number]>('CancellationCharge')
  .implement({
    description: 'A seller’s charge for cancelling its order (MEF 123 `CancelProductOrder.charge`).',
    fields: (t) => ({
      sourceId: t.exposeID('sourceId'),
      charge: t.field({ type: OrderCharge, resolve: (c) => c }),
    }),
  });

const OrderLineNotice = builder.objectRef<OrderLineNoticeRow>('OrderLineNotice').implement({
  description:
    'Why a line waits on its seller beyond its state: a call after the order’s read keeps failing.',
  fields: (t) => ({ code: t.exposeString('code'), message: t.exposeString('message') }),
});

const OrderLine = builder.objectRef<OrderLineRow>('OrderLine');

builder.node(OrderLine, {
  description: 'A quote line ordered, and where its fulfilment stands.',
  id: { resolve: (l) => l.id },
  isTypeOf: (value) =>
    typeof value === 'object' && value !== null && 'quoteLineId' in value && 'fulfilment' in value,
  loadOne: (id, ctx) => findOrderLineForViewer(ctx, String(id)),
  fields: (t) => ({
    quoteLineId: t.exposeID('quoteLineId'),
    name: t.exposeString('name'),
    source: t.field({
      type: ProductSource,
      nullable: true,
      description:
        'The source it is ordered from, as its quote line named it; null for the instance’s own products.',
      resolve: productSourceOf,
    }),
    fulfilment: t.field({ type: OrderLineFulfilment, resolve: (l) => l.fulfilment }),
    status: t.field({ type: OrderLineStatus, resolve: (l) => l.status }),
    supplierStatus: t.exposeString('supplierStatus', {
      nullable: true,
      description: 'The seller’s own item state (MEF), verbatim.',
    }),
    supplierOrderId: t.exposeString('supplierOrderId', { nullable: true }),
    supplierItemId: t.exposeString('supplierItemId', { nullable: true }),
    expectedCompletionDate: t.field({
      type: 'DateTime',
      nullable: true,
      resolve: (l) => l.expectedCompletionDate,
    }),
    completionDate: t.field({ type: 'DateTime', nullable: true, resolve: (l) => l.completionDate }),
    inventoryProductId: t.exposeString('inventoryProductId', { nullable: true }),
    inventoryProductStatus: t.exposeString('inventoryProductStatus', { nullable: true }),
    milestones: t.field({ type: [OrderMilestone], resolve: (l) => l.milestones }),
    charges: t.field({ type: [OrderCharge], resolve: (l) => l.charges }),
    cancellation: t.field({ type: OrderLineCancellation, nullable: true, resolve: (l) => l.cancellation }),
    priceChange: t.field({ type: OrderLinePriceChange, nullable: true, resolve: (l) => l.priceChange }),
    error: t.field({
      type: OrderLineError,
      nullable: true,
      resolve: (l) => (l.errorCode === null ? null : { code: l.errorCode, message: l.errorMessage ?? '' }),
    }),
    notice: t.field({
      type: OrderLineNotice,
      nullable: true,
      description:
        'What keeps the line waiting on its seller although its own state was read (e.g. CHARGE_LIST_UNAVAILABLE for a held item whose charge cannot be listed); null when nothing does.',
      resolve: (l) => l.notice ?? null, // absent from order records stored in events before issue 49
    }),
    note: t.exposeString('note', { nullable: true }),
    statusChangedAt: t.field({ type: 'DateTime', nullable: true, resolve: (l) => l.statusChangedAt }),
    statusChangedByUserId: t.exposeID('statusChangedByUserId', {
      nullable: true,
      description: 'The user who last moved the line by hand (manual lines); null while nobody did.',
    }),
  }),
});

/** The Order node type. */
export const Order = builder.objectRef<OrderRecord>('Order');

builder.node(Order, {
  description: 'An order of a quote: one line per quote line.',
  id: { resolve: (r) => r.order.id },
  isTypeOf: (value) => typeof value === 'object' && value !== null && 'order' in value && 'lines' in value,
  loadOne: (id, ctx) => findOrderForViewer(ctx, String(id)),
  fields: (t) => ({
    quoteId: t.id({ resolve: (r) => r.order.quoteId }),
    customer: t.field({
      type: Customer,
      nullable: true,
      resolve: (r, _args, ctx) => findCustomerForViewer(ctx, r.customer.id),
    }),
    status: t.field({ type: OrderStatus, resolve: (r) => r.order.status }),
    lines: t.field({ type: [OrderLine], resolve: (r) => r.lines }),
    requestedCompletionDate: t.field({ type: 'DateTime', resolve: (r) => r.order.requestedCompletionDate }),
    cancellation: t.field({
      type: OrderCancellation,
      nullable: true,
      resolve: ({ order }) =>
        order.cancelRequestedAt === null
          ? null
          : { reason: order.cancelReason ?? '', requestedAt: order.cancelRequestedAt },
    }),
    cancellationCharges: t.field({ type: [CancellationCharge], resolve: (r) => r.order.cancellationCharges }),
    createdAt: t.field({ type: 'DateTime', resolve: (r) => r.order.createdAt }),
    updatedAt: t.field({ type: 'DateTime', resolve: (r) => r.order.updatedAt }),
  }),
});

builder.queryField('order', (t) =>
  t.field({
    type: Order,
    nullable: true,
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx) => findOrderForViewer(ctx, String(args.id)),
  }),
);

builder.queryField('orders', (t) =>
  t.connection(
    {
      type: Order,
      description: 'The instance’s orders, newest first (REST: GET /orders). Forward paging only.',
      args: { customerId: t.arg.id(), status: t.arg({ type: OrderStatus }) },
      resolve: (_root, args, ctx) =>
        orderConnection(ctx, { ...args, customerId: args.customerId ? String(args.customerId) : null }),
    },
    { fields: (c) => ({ totalCount: c.int({ resolve: (connection) => connection.totalCount }) }) },
  ),
);

builder.objectField(Quote, 'orders', (t) =>
  t.field({
    type: [Order],
    description: 'The quote’s orders, newest first (a failed or cancelled one may be followed by another).',
    resolve: (quote, _args, ctx) => ordersOfQuote(ctx, quote.quote.id),
  }),
);

builder.objectField(Customer, 'orders', (t) =>
  t.connection(
    {
      type: Order,
      description: 'The customer’s orders, newest first. Forward paging only.',
      resolve: (customer, args, ctx) => orderConnection(ctx, { ...args, customerId: customer.customer.id }),
    },
    { fields: (c) => ({ totalCount: c.int({ resolve: (connection) => connection.totalCount }) }) },
  ),
);

const OrderContactInput = builder.inputType('OrderContactInput', {
  description: 'The contact sent to the sellers in every buyer role, instead of each source’s buyer contact.',
  fields: (t) => ({
    name: t.string({ required: true }),
    emailAddress: t.string({ required: true }),
    number: t.string(),
  }),
});

const PlaceOrderInput = builder.inputType('PlaceOrderInput', {
  fields: (t) => ({
    quoteId: t.id({ required: true }),
    requestedCompletionDate: t.field({
      type: 'DateTime',
      description: 'When the sellers are asked to complete; default 30 days from now.',
    }),
    contact: t.field({ type: OrderContactInput }),
  }),
});

const UpdateManualOrderLineInput = builder.inputType('UpdateManualOrderLineInput', {
  fields: (t) => ({
    orderId: t.id({ required: true }),
    lineId: t.id({ required: true }),
    status: t.field({ type: OrderLineStatus, required: true }),
    note: t.string(),
  }),
});

export const OrderPayload = (name: string) =>
  builder
    .objectRef<{ order: OrderRecord }>(name)
    .implement({ fields: (f) => ({ order: f.field({ type: Order, resolve: (p) => p.order }) }) });

builder.mutationField('placeOrder', (t) =>
  t.field({
    type: OrderPayload('PlaceOrderPayload'),
    description: 'Places an order for a quote (REST: POST /orders). Needs INSTANCE_ADMIN or ORDERING.',
    args: { input: t.arg({ type: PlaceOrderInput, required: true }) },
    resolve: async (_root, args, ctx) => {
      const { requestedCompletionDate, quoteId, contact } = args.input;
      return {
        order: await placeOrder(ctx, {
          quoteId: String(quoteId),
          requestedCompletionDate: requestedCompletionDate?.toISOString() ?? null,
          contact: contact ? withoutNulls(contact) : null,
        }),
      };
    },
  }),
);

builder.mutationField('updateManualOrderLine', (t) =>
  t.field({
    type: OrderPayload('UpdateManualOrderLinePayload'),
    description:
      'Moves a manual line through its statuses once done by other means (REST: PATCH /orders/{id}/lines/{line_id}).',
    args: { input: t.arg({ type: UpdateManualOrderLineInput, required: true }) },
    resolve: async (_root, args, ctx) => {
      const { orderId, lineId, status, note } = args.input;
      return { order: await updateManualOrderLine(ctx, String(orderId), String(lineId), { status, note }) };
    },
  }),
);

const RespondToChargeInput = builder.inputType('RespondToChargeInput', {
  fields: (t) => ({
    orderId: t.id({ required: true }),
    lineId: t.id({ required: true }),
    chargeId: t.id({ required: true }),
    accept: t.boolean({ required: true, description: 'true accepts every charge item, false rejects them.' }),
  }),
});

builder.mutationField('respondToCharge', (t) =>
  t.field({
    type: OrderPayload('RespondToChargePayload'),
    description:
      'Accepts or declines a seller’s charge on a supplier line (REST: POST /orders/{id}/lines/{line_id}/' +
      'charges/{charge_id}/accept or /decline). Needs INSTANCE_ADMIN or ORDERING.',
    args: { input: t.arg({ type: RespondToChargeInput, required: true }) },
    resolve: async (_root, args, ctx) => {
      const { orderId, lineId, chargeId, accept } = args.input;
      return {
        order: await respondToCharge(ctx, {
          orderId: String(orderId),
          lineId: String(lineId),
          chargeId: String(chargeId),
          accept,
        }),
      };
    },
  }),
);

builder.subscriptionField('orderUpdated', (t) =>
  t.field({
    type: Order,
    description:
      'Every placement and change of the instance’s orders, or only of `ids` — whose current states come ' +
      'first. Over graphql-ws (auth in connection_init `{authToken}`) or SSE.',
    args: { ids: t.arg.idList() },
    subscribe: (_root, args, ctx) => orderUpdates(ctx, { ids: args.ids?.map((id) => String(id)) ?? null }),
    resolve: (record) => record,
  }),
);
