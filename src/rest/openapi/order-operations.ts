import type { OperationSpec } from './operation-spec.js';
import { orderBody, orderListBody } from './order-schemas.js';

/** The order routes' operations (`src/rest/order-routes.ts`), keyed `METHOD /path` as in the route table. */
export const orderOperations: Record<string, OperationSpec> = {
  'GET /orders': {
    operationId: 'listOrders',
    tag: 'Orders',
    summary: 'List orders',
    description: 'A page of your orders, newest first, optionally of one customer or in one status.',
    query: ['FilterCustomerId', 'FilterStatus', 'Page', 'PageSize'],
    response: { status: 200, description: 'A page of orders.', body: orderListBody },
  },
  'POST /orders': {
    operationId: 'placeOrder',
    tag: 'Orders',
    summary: 'Place an order for a quote',
    description:
      'Orders every line of a quote that has lines and has not expired. Lines of MEF LSO Sonata sources are ' +
      'ordered from their sellers (one seller order per source) and follow the seller’s progress; lines of ' +
      'instance products whose `fulfilment` is `none` (fees, entitlements) are `completed` at once and never ' +
      'waited for; the others are manual lines an admin moves. A quote with an order that is open or ' +
      'completed answers 409, as does one that had products added while it was being ordered. From then on ' +
      'the quote is frozen. Needs the role `instance_admin` or `ordering`.',
    requestBody: 'OrderInput',
    response: { status: 201, description: 'Placed.', body: orderBody },
  },
  'GET /orders/:id': {
    operationId: 'getOrder',
    tag: 'Orders',
    summary: 'Get an order',
    description: 'One order with its lines, their statuses, dates, milestones and charges.',
    response: { status: 200, description: 'The order.', body: orderBody },
  },
  'PATCH /orders/:id/lines/:line_id': {
    operationId: 'updateManualOrderLine',
    tag: 'Orders',
    summary: 'Move a manual order line',
    description:
      'Moves a `manual` line to a status once done by other means, with an optional note; who and when are ' +
      'recorded. A supplier line, or a line that has ended, answers 409. Needs `instance_admin` or `ordering`.',
    requestBody: 'ManualOrderLineInput',
    response: { status: 200, description: 'The order with the line moved.', body: orderBody },
    problems: [409],
  },
  'POST /orders/:id/lines/:line_id/charges/:charge_id/accept': {
    operationId: 'acceptOrderCharge',
    tag: 'Orders',
    summary: 'Accept a seller’s charge',
    description:
      'Accepts every item of a charge the seller put on a supplier line (MEF 123 `PATCH /charge/{id}`); the ' +
      'line then shows the charge as the seller answered. A charge answered already, or past its ' +
      '`response_due_date` (it then shows `timeout`), answers 409. Needs `instance_admin` or `ordering`.',
    response: { status: 200, description: 'The order with the charge answered.', body: orderBody },
    problems: [503],
  },
  'POST /orders/:id/lines/:line_id/charges/:charge_id/decline': {
    operationId: 'declineOrderCharge',
    tag: 'Orders',
    summary: 'Decline a seller’s charge',
    description:
      'Rejects every item of a charge the seller put on a supplier line. A declined blocking charge ends the ' +
      'item as the seller says (MEF 123: `failed`). 409 as for accepting.',
    response: { status: 200, description: 'The order with the charge answered.', body: orderBody },
    problems: [503],
  },
  'POST /orders/:id/cancel': {
    operationId: 'cancelOrder',
    tag: 'Orders',
    summary: 'Cancel an order',
    description:
      'Asks to cancel an order that has not ended. Manual lines are cancelled at once; each open seller order ' +
      'is cancelled at its seller (MEF 123 `CancelProductOrder`, or the `http` contract’s cancel endpoint) ' +
      'by the order worker, and its lines show the cancellation’s progress: they end `cancelled`, or stay as ' +
      'they were when the seller declines (`cancellation.state` `declined`, with its reason). An order that ' +
      'has ended, or whose cancellation was asked already, answers 409. Needs `instance_admin` or `ordering`.',
    requestBody: 'CancelOrderInput',
    response: {
      status: 202,
      description: 'The cancellation was asked; the order as it left it.',
      body: orderBody,
    },
    problems: [409],
  },
  'POST /orders/:id/cancellation-charges/:charge_id/accept': {
    operationId: 'acceptCancellationCharge',
    tag: 'Orders',
    summary: 'Accept a seller’s cancellation charge',
    description:
      'Accepts every item of the charge a seller asks for cancelling its order (MEF 123 `PATCH /charge/{id}`); ' +
      'the cancellation then goes on. 409 as for line charges.',
    response: { status: 200, description: 'The order with the charge answered.', body: orderBody },
    problems: [503],
  },
  'POST /orders/:id/cancellation-charges/:charge_id/decline': {
    operationId: 'declineCancellationCharge',
    tag: 'Orders',
    summary: 'Decline a seller’s cancellation charge',
    description:
      'Rejects every item of a cancellation charge: the seller then declines the cancellation and the order ' +
      'goes on. 409 as for line charges.',
    response: { status: 200, description: 'The order with the charge answered.', body: orderBody },
    problems: [503],
  },
};
