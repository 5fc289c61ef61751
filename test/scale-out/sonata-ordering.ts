import { type Client, createClient } from 'graphql-ws';
import WebSocket from 'ws';
import {
  type SonataExchange,
  type SonataSeller,
  sonataProductOfferings,
} from '../../src/gathering/simulator/sonata/server.js';
import { demoCatalogPath, readCatalogFile } from '../../src/gathering/sources/catalog-file.js';
import type { GatewayProcess } from '../helpers/gateway-process.js';
import { waitFor } from '../helpers/wait.js';

/*
 * What the process-level ordering tests share (issue 35): the seeded demo instance of a gateway process,
 * its demo sources switched off and two simulated Sonata sellers (KPN, Eurofiber) registered instead, quotes
 * of one product of each seller, and the seller's order exchanges per supplier order. Everything goes
 * through the gateway's REST and GraphQL over HTTP; only the simulated seller runs in the test process.
 */

/** A parsed JSON document; every one read here is checked by an exact assertion. */
// biome-ignore lint/suspicious/noExplicitAny: see above.
export type Json = any;

/** A small JSON client of one gateway process, signed in. */
export interface GatewayApi {
  base: string;
  /** The auth token (`X-Auth-Token`; graphql-ws's `authToken`). */
  token: string;
  request(method: string, path: string, body?: unknown): Promise<{ status: number; body: Json }>;
  graphql(query: string, variables?: Record<string, unknown>): Promise<Json>;
}

/** The demo instance's credentials, as the first process printed them. */
export interface DemoCredentials {
  clientId: string;
  clientSecret: string;
}

/** Reads the demo credentials the seeding process printed. */
export async function demoCredentials(seeder: GatewayProcess): Promise<DemoCredentials> {
  const printed = await waitFor(
    () => /client_id: +(\S+)\n +client_secret: +(\S+)\n/.exec(seeder.output()),
    (match) => match !== null,
    15_000,
  );
  return { clientId: printed?.[1] ?? '', clientSecret: printed?.[2] ?? '' };
}

/** Signs in at `base` with the demo credentials. */
export async function signedIn(base: string, credentials: DemoCredentials): Promise<GatewayApi> {
  const call = async (method: string, path: string, body: unknown, token: string | null) => {
    const headers: Record<string, string> = {};
    if (token) headers['x-auth-token'] = token;
    if (body !== undefined) headers['content-type'] = 'application/json';
    const response = await fetch(`${base}${path}`, {
      method,
      headers,
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    return { status: response.status, body: text === '' ? null : JSON.parse(text) };
  };
  const signIn = await call(
    'POST',
    '/authentication',
    { client_id: credentials.clientId, client_secret: credentials.clientSecret },
    null,
  );
  if (signIn.status !== 200)
    throw new Error(`sign-in answered ${signIn.status}: ${JSON.stringify(signIn.body)}`);
  const token = signIn.body.data.auth_token as string;
  const api: GatewayApi = {
    base,
    token,
    request: (method, path, body) => call(method, path, body, token),
    graphql: async (query, variables = {}) => {
      const response = await call('POST', '/graphql', { query, variables }, token);
      if (response.body?.errors) throw new Error(`GraphQL errors: ${JSON.stringify(response.body.errors)}`);
      return response.body.data;
    },
  };
  return api;
}

const catalog = readCatalogFile(demoCatalogPath);

/** The two sellers every quote orders from: catalogue source key and network. */
export const sellers = [
  { key: 'kpn-wba', network: 'KPN' },
  { key: 'eurofiber', network: 'Eurofiber' },
] as const;

const REGISTER = `mutation ($input: RegisterSonataSourceInput!) {
  registerSonataSource(input: $input) { source { id } }
}`;

/**
 * Switches the demo instance's demo sources off and registers the two {@link sellers} of `seller` as its
 * `mef-sonata` sources (instant interaction, the seller's `query` knobs on every call, fast polling), so
 * that every product of a request is a Sonata product. Returns the sources' ids by seller key.
 */
export async function useSonataSellers(
  api: GatewayApi,
  seller: SonataSeller,
  query: Record<string, string> = {},
): Promise<Record<string, string>> {
  const { sources } = await api.graphql('{ sources { id } }');
  if (sources.length > 0) {
    const off = (sources as { id: string }[])
      .map(
        (source, index) =>
          `s${index}: setSourceEnabled(id: "${source.id}", enabled: false) { source { id } }`,
      )
      .join('\n');
    await api.graphql(`mutation {\n${off}\n}`);
  }
  const ids: Record<string, string> = {};
  for (const { key, network } of sellers) {
    const data = await api.graphql(REGISTER, {
      input: {
        key: `${key}-sonata`,
        name: `${network} via Sonata`,
        network,
        countryCodes: ['NL'],
        sonata: {
          baseUrl: seller.baseUrl(key, 'instant', query),
          oauth2: {
            tokenUrl: seller.tokenUrl(key),
            clientId: seller.credentials.clientId,
            clientSecret: seller.credentials.clientSecret,
          },
          buyerContact: {
            name: 'Gateway operations',
            emailAddress: 'noc@gateway.example',
            number: '+31 20 555 0100',
          },
          productOfferings: sonataProductOfferings(catalog, key),
          interaction: 'INSTANT',
          poll: { initialDelayMs: 5, maxDelayMs: 40 },
          orderPoll: { initialDelayMs: 5, maxDelayMs: 40 },
        },
      },
    });
    ids[key] = data.registerSonataSource.source.id;
  }
  return ids;
}

/**
 * `count` quotes, each for a customer of its own, of the first product of each seller at the contract's
 * example address (one request gathered for all), plus the instance product `routerId` when given.
 * Returns the quotes' ids.
 */
export async function sonataQuotes(api: GatewayApi, count: number, routerId?: string): Promise<string[]> {
  const address = {
    country_code: 'NL',
    street: 'Lijnbaansgracht',
    city: 'Amsterdam',
    house_number: '206',
    house_number_addition: 'H',
    postal_code: '1016 XA',
  };
  const created = await api.request('POST', '/availability-requests', [{ address }]);
  if (created.status !== 201) throw new Error(`request answered ${created.status}`);
  const id = created.body.data[0].id;
  const done = await waitFor(
    () => api.request('GET', `/availability-requests/${id}`),
    (response) => response.body.data.status === 'completed',
    30_000,
  );
  const productIds = sellers.map(({ network }) => {
    const product = (done.body.data.products as Json[]).find((each) => each.network === network);
    if (!product) throw new Error(`no ${network} product in ${JSON.stringify(done.body.data)}`);
    return product.id as string;
  });
  const quoteIds: string[] = [];
  for (let index = 0; index < count; index += 1) {
    const customer = await api.request('POST', '/customers', { name: `Customer ${index + 1} B.V.` });
    const quote = await api.request('POST', '/quotes', {
      name: `Head office ${index + 1}`,
      customer_id: customer.body.data.id,
      availability_request_product_ids: productIds,
      ...(routerId ? { instance_product_ids: [routerId] } : {}),
    });
    if (quote.status !== 201)
      throw new Error(`quote answered ${quote.status}: ${JSON.stringify(quote.body)}`);
    quoteIds.push(quote.body.data.id);
  }
  return quoteIds;
}

/** A router rental as an instance product (a `manual` order line); returns its id. */
export async function routerProduct(api: GatewayApi): Promise<string> {
  const data = await api.graphql(
    `mutation ($input: InstanceProductInput!) { createInstanceProduct(input: $input) { product { id } } }`,
    { input: { name: 'Router rental', mrc: 9.5, nrc: 0, currency: 'EUR' } },
  );
  return data.createInstanceProduct.product.id;
}

/** Places an order of a quote; returns the order document. */
export async function placeOrder(api: GatewayApi, quoteId: string): Promise<Json> {
  const placed = await api.request('POST', '/orders', { quote_id: quoteId });
  if (placed.status !== 201)
    throw new Error(`order answered ${placed.status}: ${JSON.stringify(placed.body)}`);
  return placed.body.data;
}

const isOrderCollection = (exchange: SonataExchange) =>
  /\/productOrderingManagement\/v10\/productOrder$/.test(exchange.path);

/** Whether an exchange is a `POST /productOrder` (any answer). */
export const isOrderPost = (exchange: SonataExchange) =>
  exchange.method === 'POST' && isOrderCollection(exchange);

/**
 * The exchanges of one supplier order at its seller, in the order the seller answered them:
 * `POST <status>` (its placement, by `externalId`), `LOOKUP found|none` (`GET /productOrder?externalId=…`,
 * whether the answer listed it) and `READ <status>` (`GET /productOrder/{sellerOrderId}`).
 */
export function supplierOrderTrace(
  seller: SonataSeller,
  externalId: string,
  sellerOrderId: string | null,
): string[] {
  const trace: string[] = [];
  for (const exchange of seller.exchanges) {
    if (isOrderPost(exchange) && (exchange.requestBody as Json)?.externalId === externalId) {
      trace.push(`POST ${exchange.status}`);
    } else if (
      exchange.method === 'GET' &&
      isOrderCollection(exchange) &&
      exchange.query.externalId === externalId
    ) {
      const listed =
        exchange.status === 200 &&
        (exchange.responseBody as Json[]).some((order) => order.externalId === externalId);
      trace.push(`LOOKUP ${listed ? 'found' : 'none'}`);
    } else if (
      sellerOrderId !== null &&
      exchange.method === 'GET' &&
      exchange.path.endsWith(`/productOrderingManagement/v10/productOrder/${sellerOrderId}`)
    ) {
      trace.push(`READ ${exchange.status}`);
    }
  }
  return trace;
}

/** A seeded pseudo-random generator (mulberry32): the same seed gives the same draws in [0, 1). */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The process id in a lease owner (`<host>:<pid>:<uuid>`), or null. */
export function pidOf(owner: string | null | undefined): number | null {
  const pid = owner?.split(':')[1];
  return pid === undefined ? null : Number(pid);
}

/** A graphql-ws subscriber of `orderUpdated`: what it received, whether it is connected, and how to close. */
export interface OrderSubscriber {
  updates: Json[];
  connected(): boolean;
  close(): unknown;
}

/**
 * A graphql-ws client at `base`, signed in with `token` and subscribed with `query` (an `orderUpdated`
 * subscription without variables); it does not reconnect, so a dropped connection stays visible.
 */
export function orderSubscriber(base: string, token: string, query: string): OrderSubscriber {
  const updates: Json[] = [];
  let acknowledged = false;
  const client: Client = createClient({
    url: `${base.replace(/^http/, 'ws')}/graphql`,
    webSocketImpl: WebSocket,
    connectionParams: { authToken: token },
    retryAttempts: 0,
    on: {
      connected: () => {
        acknowledged = true;
      },
    },
  });
  client.subscribe<{ orderUpdated: Json }>(
    { query },
    {
      next: (result) => {
        if (result.data) updates.push(result.data.orderUpdated);
        else updates.push({ errors: result.errors });
      },
      error: (error) => {
        updates.push({ errors: [String(error)] });
      },
      complete: () => {},
    },
  );
  return { updates, connected: () => acknowledged, close: () => client.dispose() };
}
