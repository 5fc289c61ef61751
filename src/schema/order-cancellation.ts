import { cancelOrder } from '../resolvers/order-cancellation.js';
import { respondToCancellationCharge } from '../resolvers/order-charges.js';
import { builder } from './builder.js';
import { OrderPayload } from './orders.js';

// Cancelling an order and answering a cancellation charge (issue "Orders, part 2", item 1).

const CancelOrderInput = builder.inputType('CancelOrderInput', {
  fields: (t) => ({
    orderId: t.id({ required: true }),
    reason: t.string({ required: true, description: 'Sent to the sellers as the cancellation’s reason.' }),
  }),
});

builder.mutationField('cancelOrder', (t) =>
  t.field({
    type: OrderPayload('CancelOrderPayload'),
    description:
      'Asks to cancel an order that has not ended (REST: POST /orders/{id}/cancel): manual lines are cancelled ' +
      'at once, each seller order is cancelled at its seller by the order worker and its lines show the ' +
      'cancellation’s progress. Needs INSTANCE_ADMIN or ORDERING.',
    args: { input: t.arg({ type: CancelOrderInput, required: true }) },
    resolve: async (_root, args, ctx) => ({
      order: await cancelOrder(ctx, String(args.input.orderId), { reason: args.input.reason }),
    }),
  }),
);

const RespondToCancellationChargeInput = builder.inputType('RespondToCancellationChargeInput', {
  fields: (t) => ({
    orderId: t.id({ required: true }),
    chargeId: t.id({ required: true }),
    accept: t.boolean({ required: true, description: 'true accepts every charge item, false rejects them.' }),
  }),
});

builder.mutationField('respondToCancellationCharge', (t) =>
  t.field({
    type: OrderPayload('RespondToCancellationChargePayload'),
    description:
      'Accepts or declines the charge a seller asks for cancelling its order (REST: POST /orders/{id}/' +
      'cancellation-charges/{charge_id}/accept or /decline). Needs INSTANCE_ADMIN or ORDERING.',
    args: { input: t.arg({ type: RespondToCancellationChargeInput, required: true }) },
    resolve: async (_root, args, ctx) => {
      const { orderId, chargeId, accept } = args.input;
      return {
        order: await respondToCancellationCharge(ctx, {
          orderId: String(orderId),
          chargeId: String(chargeId),
          accept,
        }),
      };
    },
  }),
);
