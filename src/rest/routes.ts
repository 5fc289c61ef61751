import { authenticate } from '../resolvers/authentication.js';
import { availabilityOptions } from '../resolvers/availability-options.js';
import {
  availabilityRequestProducts,
  availabilityRequestSourceOutcomes,
  createAvailabilityRequests,
  getAvailabilityRequest,
  listAvailabilityRequests,
} from '../resolvers/availability-requests.js';
import { createCustomer, listCustomers } from '../resolvers/customers.js';
import { issueEventStreamToken } from '../resolvers/event-stream-token.js';
import { instanceProducts } from '../resolvers/instance-products.js';
import { createProject, listProjects } from '../resolvers/projects.js';
import { addQuoteProducts, createQuote, getQuote, quoteOrderStatuses } from '../resolvers/quotes.js';
import { revokeOwnAuthToken } from '../resolvers/revocation.js';
import {
  authenticationDocument,
  availabilityRequestDocument,
  customerDocument,
  instanceProductDocument,
  optionsDocument,
  paginationDocument,
  productDocument,
  projectDocument,
  quoteDocument,
  sourceOutcomeDocument,
} from './documents.js';
import { camelizeBody } from './keys.js';
import { orderRoutes } from './order-routes.js';
import type { Route } from './route.js';

export type { Route, RouteInput } from './route.js';

/** The whole REST surface. More specific paths come before parameterised ones. */
export const routes: Route[] = [
  {
    method: 'POST',
    path: '/authentication',
    authenticated: false,
    body: true,
    handle: async ({ ctx, body }) => ({
      status: 200,
      body: { data: authenticationDocument(await authenticate(ctx, camelizeBody(body))) },
    }),
  },
  {
    // Revokes the presented auth token (and its refresh token): no instance accepts it any more.
    method: 'DELETE',
    path: '/authentication',
    authenticated: true,
    body: false,
    handle: async ({ ctx }) => {
      await revokeOwnAuthToken(ctx);
      return { status: 204, body: null };
    },
  },
  {
    method: 'GET',
    path: '/availability-requests/options',
    authenticated: true,
    body: false,
    handle: async ({ ctx, query }) => ({
      status: 200,
      body: {
        data: optionsDocument(
          await availabilityOptions(ctx, { countryCode: query.get('country_code') ?? undefined }),
        ),
      },
    }),
  },
  {
    method: 'GET',
    path: '/availability-requests',
    authenticated: true,
    body: false,
    eventStream: true,
    handle: async ({ ctx, query }) => {
      const { records, pagination } = await listAvailabilityRequests(ctx, {
        page: query.get('page') ?? undefined,
        pageSize: query.get('page_size') ?? undefined,
      });
      return {
        status: 200,
        body: {
          data: records.map(availabilityRequestDocument),
          sse_jwt: await issueEventStreamToken(ctx),
          pagination: paginationDocument(pagination),
        },
      };
    },
  },
  {
    method: 'POST',
    path: '/availability-requests',
    authenticated: true,
    body: true,
    handle: async ({ ctx, body }) => {
      const { records, message } = await createAvailabilityRequests(ctx, camelizeBody(body));
      return { status: 201, body: { data: records.map(({ request }) => ({ id: request.id })), message } };
    },
  },
  {
    method: 'GET',
    path: '/availability-requests/:id',
    authenticated: true,
    body: false,
    eventStream: true,
    handle: async ({ ctx, params }) => {
      const record = await getAvailabilityRequest(ctx, params.id ?? '');
      const [products, sources] = await Promise.all([
        availabilityRequestProducts(ctx, record.request.id),
        availabilityRequestSourceOutcomes(ctx, record.request.id),
      ]);
      const byId = new Map(sources.map((source) => [source.sourceId, source]));
      return {
        status: 200,
        body: {
          data: {
            ...availabilityRequestDocument(record),
            products: products.map((product) => productDocument(product, byId)),
            sources: sources.map(sourceOutcomeDocument),
          },
          sse_jwt: await issueEventStreamToken(ctx),
        },
      };
    },
  },
  {
    method: 'GET',
    path: '/customers',
    authenticated: true,
    body: false,
    handle: async ({ ctx, query }) => {
      const { records, pagination } = await listCustomers(ctx, {
        name: query.get('filter[name]') ?? undefined,
        page: query.get('page') ?? undefined,
        pageSize: query.get('page_size') ?? undefined,
      });
      return {
        status: 200,
        body: { data: records.map(customerDocument), pagination: paginationDocument(pagination) },
      };
    },
  },
  {
    method: 'POST',
    path: '/customers',
    authenticated: true,
    body: true,
    handle: async ({ ctx, body }) => ({
      status: 201,
      body: { data: customerDocument(await createCustomer(ctx, camelizeBody(body))) },
    }),
  },
  {
    method: 'GET',
    path: '/projects',
    authenticated: true,
    body: false,
    handle: async ({ ctx, query }) => {
      const { projects, pagination } = await listProjects(ctx, {
        customerId: query.get('customer_id') ?? undefined,
        page: query.get('page') ?? undefined,
        pageSize: query.get('page_size') ?? undefined,
      });
      return {
        status: 200,
        body: {
          data: projects.map(projectDocument),
          pagination: paginationDocument(pagination),
        },
      };
    },
  },
  {
    method: 'POST',
    path: '/projects',
    authenticated: true,
    body: true,
    handle: async ({ ctx, body }) => {
      return { status: 201, body: { data: projectDocument(await createProject(ctx, camelizeBody(body))) } };
    },
  },
  {
    method: 'GET',
    path: '/instance-products',
    authenticated: true,
    body: false,
    handle: async ({ ctx }) => ({
      status: 200,
      body: { data: (await instanceProducts(ctx, false)).map(instanceProductDocument) },
    }),
  },
  {
    method: 'GET',
    path: '/mandatory-products',
    authenticated: true,
    body: false,
    handle: async ({ ctx }) => ({
      status: 200,
      body: { data: (await instanceProducts(ctx, true)).map(instanceProductDocument) },
    }),
  },
  {
    method: 'POST',
    path: '/quotes',
    authenticated: true,
    body: true,
    handle: async ({ ctx, body }) => ({
      status: 201,
      body: { data: quoteDocument(await createQuote(ctx, camelizeBody(body)), []) },
    }),
  },
  {
    method: 'GET',
    path: '/quotes/:id',
    authenticated: true,
    body: false,
    handle: async ({ ctx, params }) => {
      const record = await getQuote(ctx, params.id ?? '');
      return {
        status: 200,
        body: { data: quoteDocument(record, await quoteOrderStatuses(ctx, record.quote.id)) },
      };
    },
  },
  {
    method: 'POST',
    path: '/quotes/:id/products',
    authenticated: true,
    body: true,
    handle: async ({ ctx, params, body }) => {
      const record = await addQuoteProducts(ctx, params.id ?? '', camelizeBody(body));
      return {
        status: 200,
        body: { data: quoteDocument(record, await quoteOrderStatuses(ctx, record.quote.id)) },
      };
    },
  },
  ...orderRoutes,
];
