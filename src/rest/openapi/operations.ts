import {
  authenticationBody,
  availabilityRequestBody,
  availabilityRequestListBody,
  availabilityRequestsCreatedBody,
  customerBody,
  customerListBody,
  instanceProductListBody,
  optionsBody,
  projectBody,
  projectListBody,
  quoteBody,
} from './bodies.js';
import type { OperationSpec } from './operation-spec.js';
import { orderOperations } from './order-operations.js';

export type { OperationSpec, QueryParameter } from './operation-spec.js';

/** Every route's operation, keyed `METHOD /path` exactly as in the route table. */
export const operations: Record<string, OperationSpec> = {
  'POST /authentication': {
    operationId: 'authenticate',
    tag: 'Authentication',
    summary: 'Sign in',
    description:
      'Exchanges client credentials, or a refresh token, for an auth token (1 hour) and a new refresh token ' +
      '(30 days). A refresh token works once. Wrong credentials and an unknown, used or expired refresh ' +
      'token all answer the same 401.',
    requestBody: 'AuthenticationRequest',
    response: { status: 200, description: 'Signed in.', body: authenticationBody },
    problems: [401],
  },
  'DELETE /authentication': {
    operationId: 'revokeAuthToken',
    tag: 'Authentication',
    summary: 'Sign out: revoke the auth token',
    description:
      'Revokes the auth token sent with the request, and the refresh token issued with it. Within a second ' +
      'no instance of the service accepts either (401), the `sse_jwt`s handed out for it stop working, and ' +
      'the event streams and GraphQL WebSocket connections opened with it end (WebSockets close with 4403). ' +
      'A token revoked already, or unknown, answers 401.',
    response: { status: 204, description: 'Revoked.' },
  },
  'GET /availability-requests/options': {
    operationId: 'getAvailabilityOptions',
    tag: 'Availability requests',
    summary: 'Address fields and filter values of a country',
    description:
      'Which address fields a country requires and the pattern each must match, and the filter values ' +
      '(technology types, connection types, networks, bandwidths in kbps, contract terms in months) the ' +
      "instance's sources offer there.",
    query: ['CountryCode'],
    response: { status: 200, description: 'The options of the country.', body: optionsBody },
  },
  'GET /availability-requests': {
    operationId: 'listAvailabilityRequests',
    tag: 'Availability requests',
    summary: 'List availability requests',
    description: 'A page of your availability requests, newest first, with their gathering progress.',
    query: ['Page', 'PageSize'],
    response: { status: 200, description: 'A page of requests.', body: availabilityRequestListBody },
  },
  'POST /availability-requests': {
    operationId: 'createAvailabilityRequests',
    tag: 'Availability requests',
    summary: 'Create availability requests',
    description:
      'Creates one availability request per element and starts gathering offers from every matching ' +
      "source. One invalid element creates nothing (422). A customer's monthly limit that would be passed " +
      'creates nothing (429).',
    requestBody: 'AvailabilityRequestBatch',
    response: { status: 201, description: 'Created.', body: availabilityRequestsCreatedBody },
  },
  'GET /availability-requests/:id': {
    operationId: 'getAvailabilityRequest',
    tag: 'Availability requests',
    summary: 'Get an availability request',
    description: 'One availability request with the products gathered so far and the outcome of each source.',
    response: { status: 200, description: 'The request.', body: availabilityRequestBody },
  },
  'GET /customers': {
    operationId: 'listCustomers',
    tag: 'Customers',
    summary: 'List customers',
    description: 'A page of your customers by name, optionally narrowed to names containing a text.',
    query: ['FilterName', 'Page', 'PageSize'],
    response: { status: 200, description: 'A page of customers.', body: customerListBody },
  },
  'POST /customers': {
    operationId: 'createCustomer',
    tag: 'Customers',
    summary: 'Create a customer',
    description: 'Creates a customer on the instance’s default price plan.',
    requestBody: 'CustomerInput',
    response: { status: 201, description: 'Created.', body: customerBody },
  },
  'GET /projects': {
    operationId: 'listProjects',
    tag: 'Projects',
    summary: 'List projects',
    description:
      'A page of your projects, oldest first, optionally of one customer (404 for an unknown one).',
    query: ['CustomerId', 'Page', 'PageSize'],
    response: { status: 200, description: 'A page of projects.', body: projectListBody },
    problems: [404],
  },
  'POST /projects': {
    operationId: 'createProject',
    tag: 'Projects',
    summary: 'Create a project',
    description: 'Creates a project for one of your customers.',
    requestBody: 'ProjectInput',
    response: { status: 201, description: 'Created.', body: projectBody },
  },
  'GET /instance-products': {
    operationId: 'listInstanceProducts',
    tag: 'Products',
    summary: 'List instance products',
    description: 'The items of your own catalogue that may be put on a quote.',
    response: { status: 200, description: 'The instance products.', body: instanceProductListBody },
  },
  'GET /mandatory-products': {
    operationId: 'listMandatoryProducts',
    tag: 'Products',
    summary: 'List mandatory products',
    description: 'The items every quote of your instance carries.',
    response: { status: 200, description: 'The mandatory products.', body: instanceProductListBody },
  },
  'POST /quotes': {
    operationId: 'createQuote',
    tag: 'Quotes',
    summary: 'Create a quote',
    description:
      "Creates a quote for one of your customers, in the customer's preferred currency (else the instance's), " +
      'with the named products and every mandatory product as lines.',
    requestBody: 'QuoteInput',
    response: { status: 201, description: 'Created.', body: quoteBody },
  },
  'GET /quotes/:id': {
    operationId: 'getQuote',
    tag: 'Quotes',
    summary: 'Get a quote',
    description: 'One quote with its lines and totals.',
    response: { status: 200, description: 'The quote.', body: quoteBody },
  },
  'POST /quotes/:id/products': {
    operationId: 'addQuoteProducts',
    tag: 'Quotes',
    summary: 'Add products to a quote',
    description:
      'Adds products to a quote; products already on it are skipped. Nothing is added on a 422. A quote with ' +
      'an order that is neither `failed` nor `cancelled` is frozen: adding answers 409 and changes nothing.',
    requestBody: 'QuoteProductsInput',
    response: { status: 200, description: 'The quote with its new lines.', body: quoteBody },
  },
  ...orderOperations,
};
