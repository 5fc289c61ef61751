/** The REST paths of orders (issue "Orders, part 1", item 7), mapped to the order resolvers. */
import { cancelOrder } from '../resolvers/order-cancellation.js';
import { respondToCancellationCharge, respondToCharge } from '../resolvers/order-charges.js';
import { getOrder, listOrders, placeOrder, updateManualOrderLine } from '../resolvers/orders.js';
import { paginationDocument } from './documents.js';
import { camelizeBody } from './keys.js';
import { orderDocument } from './order-documents.js';
import type { Route } from './route.js';

/**
 * `POST /orders/{id}/lines/{line_id}/charges/{charge_id}/accept` or `…/decline` (a line's charge), and
 * `POST /orders/{id}/cancellation-charges/{charge_id}/accept` or `…/decline` (an order's cancellation charge).
 */
function chargeAnswerRoute(accept: boolean, of: 'line' | 'cancellation'): Route {
  const verb = accept ? 'accept' : 'decline';
  return {
    method: 'POST',
    path:
      of === 'line'
        ? `/orders/:id/lines/:line_id/charges/:charge_id/${verb}`
        : `/orders/:id/cancellation-charges/:charge_id/${verb}`,
    authenticated: true,
    body: false,
    handle: async ({ ctx, params }) => {
      const ids = { orderId: params.id ?? '', chargeId: params.charge_id ?? '', accept };
      const record =
        of === 'line'
          ? await respondToCharge(ctx, { ...ids, lineId: params.line_id ?? '' })
          : await respondToCancellationCharge(ctx, ids);
      return { status: 200, body: { data: orderDocument(record) } };
    },
  };
}

export const orderRoutes: Route[] = [
  {
    method: 'GET',
    path: '/orders',
    authenticated: true,
    body: false,
    handle: async ({ ctx, query }) => {
      const { records, pagination } = await listOrders(ctx, {
        customerId: query.get('filter[customer_id]') ?? undefined,
        status: query.get('filter[status]') ?? undefined,
        page: query.get('page') ?? undefined,
        pageSize: query.get('page_size') ?? undefined,
      });
      return {
        status: 200,
        body: { data: records.map(orderDocument), pagination: paginationDocument(pagination) },
      };
    },
  },
  {
    method: 'POST',
    path: '/orders',
    authenticated: true,
    body: true,
    handle: async ({ ctx, body }) => ({
      status: 201,
      body: { data: orderDocument(await placeOrder(ctx, camelizeBody(body))) },
    }),
  },
  {
    method: 'GET',
    path: '/orders/:id',
    authenticated: true,
    body: false,
    handle: async ({ ctx, params }) => ({
      status: 200,
      body: { data: orderDocument(await getOrder(ctx, params.id ?? '')) },
    }),
  },
  {
    method: 'PATCH',
    path: '/orders/:id/lines/:line_id',
    authenticated: true,
    body: true,
    handle: async ({ ctx, params, body }) => ({
      status: 200,
      body: {
        data: orderDocument(
          await updateManualOrderLine(ctx, params.id ?? '', params.line_id ?? '', camelizeBody(body)),
        ),
      },
    }),
  },
  {
    method: 'POST',
    path: '/orders/:id/cancel',
    authenticated: true,
    body: true,
    handle: async ({ ctx, params, body }) => ({
      status: 202,
      body: { data: orderDocument(await cancelOrder(ctx, params.id ?? '', camelizeBody(body))) },
    }),
  },
  chargeAnswerRoute(true, 'cancellation'),
  chargeAnswerRoute(false, 'cancellation'),
  chargeAnswerRoute(true, 'line'),
  chargeAnswerRoute(false, 'line'),
];
