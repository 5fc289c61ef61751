import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type IdKind, idPrefixes, newId } from '../../src/ids.js';
import { snakeKey } from '../../src/rest/keys.js';
import { type Route, routes } from '../../src/rest/routes.js';
import {
  type ApiClient,
  type Json,
  startTestServer,
  type TestServer,
  type TestTenant,
  waitFor,
} from '../helpers/app.js';
import { countEveryTable } from '../helpers/store.js';

/**
 * Tenant isolation of the REST surface, generated from the route table: every id a route takes (path
 * parameter, query parameter, body field) is given another instance's id, and the answer must be exactly
 * the one a well-formed id that nobody has gets, with nothing written.
 */

/** Where a route takes an id: `path:id`, `query:customer_id`, `body:instance_product_ids`. */
type Slot = `${'path' | 'query' | 'body'}:${string}`;

/** The objects of one instance the fixtures refer to, by id kind. */
type Objects = Partial<Record<IdKind, string>>;

/** A request B sends with `id` in one slot and its own valid objects everywhere else. */
interface IdCheck {
  /** The kind of A's object put in the slot. */
  kind: IdKind;
  request(id: string, own: Objects): { method: 'GET' | 'POST' | 'PATCH'; path: string; body?: unknown };
}

const address = { country_code: 'NL', postal_code: '1016XA', house_number: '206' };
const productIdFields = [
  ['availability_request_product_ids', 'availabilityRequestProduct'],
  ['instance_product_ids', 'instanceProduct'],
  ['mandatory_product_ids', 'mandatoryProduct'],
] as const;

/** One entry per route that takes an id; a slot missing here fails the suite. */
const fixtures: Record<string, Partial<Record<Slot, IdCheck>>> = {
  'GET /availability-requests/:id': {
    'path:id': {
      kind: 'availabilityRequest',
      request: (id) => ({ method: 'GET', path: `/availability-requests/${id}` }),
    },
  },
  'POST /availability-requests': {
    'body:customer_id': {
      kind: 'customer',
      request: (id) => ({
        method: 'POST',
        path: '/availability-requests',
        body: [{ address, customer_id: id }],
      }),
    },
    'body:project_id': {
      kind: 'project',
      request: (id) => ({
        method: 'POST',
        path: '/availability-requests',
        body: [{ address, project_id: id }],
      }),
    },
  },
  'GET /projects': {
    'query:customer_id': {
      kind: 'customer',
      request: (id) => ({ method: 'GET', path: `/projects?customer_id=${id}` }),
    },
  },
  'POST /projects': {
    'body:customer_id': {
      kind: 'customer',
      request: (id) => ({ method: 'POST', path: '/projects', body: { customer_id: id, name: 'Hijack' } }),
    },
  },
  'POST /quotes': {
    'body:customer_id': {
      kind: 'customer',
      request: (id) => ({ method: 'POST', path: '/quotes', body: { name: 'Hijack', customer_id: id } }),
    },
    ...Object.fromEntries(
      productIdFields.map(([field, kind]) => [
        `body:${field}`,
        {
          kind,
          request: (id: string, own: Objects) => ({
            method: 'POST' as const,
            path: '/quotes',
            body: { name: 'Hijack', customer_id: own.customer, [field]: [id] },
          }),
        },
      ]),
    ),
  },
  'GET /quotes/:id': {
    'path:id': { kind: 'quote', request: (id) => ({ method: 'GET', path: `/quotes/${id}` }) },
  },
  'POST /quotes/:id/products': {
    'path:id': {
      kind: 'quote',
      request: (id) => ({ method: 'POST', path: `/quotes/${id}/products`, body: {} }),
    },
    ...Object.fromEntries(
      productIdFields.map(([field, kind]) => [
        `body:${field}`,
        {
          kind,
          request: (id: string, own: Objects) => ({
            method: 'POST' as const,
            path: `/quotes/${own.quote}/products`,
            body: { [field]: [id] },
          }),
        },
      ]),
    ),
  },
  'GET /orders': {
    // A filter: an id of no customer of B's filters everything out, whoever's it is.
    'query:filter[customer_id]': {
      kind: 'customer',
      request: (id) => ({ method: 'GET', path: `/orders?filter[customer_id]=${id}` }),
    },
  },
  'GET /orders/:id': {
    'path:id': { kind: 'order', request: (id) => ({ method: 'GET', path: `/orders/${id}` }) },
  },
  'POST /orders': {
    'body:quote_id': {
      kind: 'quote',
      request: (id) => ({ method: 'POST', path: '/orders', body: { quote_id: id } }),
    },
  },
  'POST /orders/:id/cancel': {
    'path:id': {
      kind: 'order',
      request: (id) => ({ method: 'POST', path: `/orders/${id}/cancel`, body: { reason: 'Moved.' } }),
    },
  },
  ...Object.fromEntries(
    (['accept', 'decline'] as const).map((verb) => {
      const path = (order?: string, charge = 'chg-1') =>
        `/orders/${order}/cancellation-charges/${charge}/${verb}`;
      return [
        `POST /orders/:id/cancellation-charges/:charge_id/${verb}`,
        {
          'path:id': { kind: 'order', request: (id: string) => ({ method: 'POST', path: path(id) }) },
          // A charge id is the seller's; A's order id stands in for an id of A's.
          'path:charge_id': {
            kind: 'order',
            request: (id: string, own: Objects) => ({ method: 'POST', path: path(own.order, id) }),
          },
        } satisfies Partial<Record<Slot, IdCheck>>,
      ];
    }),
  ),
  'PATCH /orders/:id/lines/:line_id': {
    'path:id': {
      kind: 'order',
      request: (id, own) => ({
        method: 'PATCH',
        path: `/orders/${id}/lines/${own.orderLine}`,
        body: { status: 'completed' },
      }),
    },
    'path:line_id': {
      kind: 'orderLine',
      request: (id, own) => ({
        method: 'PATCH',
        path: `/orders/${own.order}/lines/${id}`,
        body: { status: 'completed' },
      }),
    },
  },
  ...Object.fromEntries(
    (['accept', 'decline'] as const).map((verb) => {
      const path = (order?: string, line?: string, charge = 'chg-1') =>
        `/orders/${order}/lines/${line}/charges/${charge}/${verb}`;
      return [
        `POST /orders/:id/lines/:line_id/charges/:charge_id/${verb}`,
        {
          'path:id': {
            kind: 'order',
            request: (id: string, own: Objects) => ({ method: 'POST', path: path(id, own.orderLine) }),
          },
          'path:line_id': {
            kind: 'orderLine',
            request: (id: string, own: Objects) => ({ method: 'POST', path: path(own.order, id) }),
          },
          // A charge id is the seller's; A's order id stands in for an id of A's.
          'path:charge_id': {
            kind: 'order',
            request: (id: string, own: Objects) => ({
              method: 'POST',
              path: path(own.order, own.orderLine, id),
            }),
          },
        } satisfies Partial<Record<Slot, IdCheck>>,
      ];
    }),
  ),
};

/** Body routes whose input is checked to hold no object ids although the probe cannot tell. */
const idFreeBodies: Record<string, string> = {
  'POST /authentication': 'client credentials or a refresh token; a union schema reports no unknown keys',
};

const routeKey = (route: Route) => `${route.method} ${route.path}`;

/** Every id-shaped field name a query or body could carry: `customer_id`, `customer_ids`, … per id kind. */
const candidates = (Object.keys(idPrefixes) as IdKind[]).flatMap((kind) => [
  { key: `${snakeKey(kind)}_id`, kind, list: false },
  { key: `${snakeKey(kind)}_ids`, kind, list: true },
]);
const queryCandidates = candidates.flatMap((candidate) => [
  candidate,
  { ...candidate, key: `filter[${candidate.key}]` },
]);
const control = 'zz_isolation_probe';

/** A response as compared for the query probe: status and body without the per-call `sse_jwt`. */
async function readable(api: ApiClient, path: string): Promise<string> {
  const response = await api.get(path);
  const { sse_jwt: _token, ...rest } = response.body ?? {};
  return JSON.stringify([response.status, rest]);
}

/** Query keys a GET route reads: those whose unknown id changes the answer (all at once first, then one by one). */
async function queryIdSlots(api: ApiClient, route: Route): Promise<Slot[]> {
  if (route.method !== 'GET' || route.path.includes(':')) return [];
  const param = (c: (typeof queryCandidates)[number]) => `${encodeURIComponent(c.key)}=${newId(c.kind)}`;
  const baseline = await readable(api, route.path);
  if ((await readable(api, `${route.path}?${queryCandidates.map(param).join('&')}`)) === baseline) return [];
  const slots: Slot[] = [];
  for (const candidate of queryCandidates) {
    if ((await readable(api, `${route.path}?${param(candidate)}`)) !== baseline)
      slots.push(`query:${candidate.key}`);
  }
  return slots;
}

/**
 * Body keys a POST route takes: every candidate is sent, as an object and as a one-element array, next to
 * an unknown control key; where the strict schema names the control as unknown, each candidate it does
 * not name is a field of the body. `null` when neither shape is conclusive.
 */
async function bodyIdSlots(api: ApiClient, route: Route): Promise<Slot[] | null> {
  const element = Object.fromEntries([
    ...candidates.map((c) => [c.key, c.list ? [newId(c.kind)] : newId(c.kind)]),
    [control, true],
  ]);
  const path = route.path.replace(/:\w+/g, () => newId('quote'));
  let conclusive = false;
  const taken = new Set<Slot>();
  for (const [body, prefix] of [
    [element, ''],
    [[element], '/0'],
  ] as const) {
    const response = await api.request(route.method, path, { body });
    const unknown = new Set(
      ((response.body?.errors ?? []) as Json[])
        .filter((error) => error.message === 'is not a known field')
        .map((error) => error.path),
    );
    if (!unknown.has(`${prefix}/${control}`)) continue;
    conclusive = true;
    for (const { key } of candidates) if (!unknown.has(`${prefix}/${key}`)) taken.add(`body:${key}`);
  }
  return conclusive ? [...taken] : null;
}

/** Rows in every table of the database. */
function rowCounts(server: TestServer): Promise<Record<string, number>> {
  return countEveryTable(server.app.services.db);
}

/** A document with one id replaced by a placeholder, to compare answers about different ids. */
const withoutId = (document: unknown, id: string): unknown =>
  JSON.parse(JSON.stringify(document).replaceAll(id, '<id>'));

const roles = ['instance_admin', 'connectivity_check'] as const;

let server: TestServer;
let a: TestTenant;
let b: TestTenant;
const ofA: Objects = {};
const ofB: Objects = {};

/** A customer, a project and a quote in one instance; for A also a completed request with its products. */
async function populate(tenant: TestTenant, into: Objects, gather: boolean): Promise<void> {
  into.customer = (await tenant.api.post('/customers', { name: 'Acme' })).body.data.id;
  into.project = (
    await tenant.api.post('/projects', { customer_id: into.customer, name: 'HQ' })
  ).body.data.id;
  into.instanceProduct = (await tenant.api.get('/instance-products')).body.data[0].id;
  into.mandatoryProduct = (await tenant.api.get('/mandatory-products')).body.data[0].id;
  if (gather) {
    const created = await tenant.api.post('/availability-requests', [{ address, project_id: into.project }]);
    into.availabilityRequest = created.body.data[0].id;
    const done = await waitFor(
      () => tenant.api.get(`/availability-requests/${into.availabilityRequest}`),
      (response) => response.body.data.status === 'completed' && response.body.data.products.length > 0,
    );
    into.availabilityRequestProduct = done.body.data.products[0].id;
  }
  const quote = await tenant.api.post('/quotes', {
    name: 'Offer',
    customer_id: into.customer,
    instance_product_ids: [into.instanceProduct],
    ...(gather ? { availability_request_product_ids: [into.availabilityRequestProduct] } : {}),
  });
  into.quote = quote.body.data.id;
  const order = (await tenant.api.post('/orders', { quote_id: into.quote })).body.data;
  into.order = order.id;
  into.orderLine = order.lines.find((line: Json) => line.fulfilment === 'manual').id;
}

beforeAll(async () => {
  server = await startTestServer();
  [a, b] = await Promise.all([server.tenant({ roles: [...roles] }), server.tenant({ roles: [...roles] })]);
  await Promise.all([populate(a, ofA, true), populate(b, ofB, false)]);
}, 60_000);
afterAll(() => server.close());

describe('REST tenant isolation', () => {
  it('when the route table is probed for ids, then every id-taking route and field has an isolation fixture', async () => {
    const found: string[] = [];
    for (const route of routes) {
      const key = routeKey(route);
      const api = route.authenticated ? b.api : server.anonymous;
      const slots: Slot[] = route.path
        .split('/')
        .filter((segment) => segment.startsWith(':'))
        .map((segment) => `path:${segment.slice(1)}` as const);
      slots.push(...(await queryIdSlots(api, route)));
      if (route.body) {
        const body = await bodyIdSlots(api, route);
        if (body) slots.push(...body);
        else if (!(key in idFreeBodies)) slots.push('body:<cannot tell which fields are ids>');
      }
      found.push(...slots.map((slot) => `${key} ${slot}`));
    }
    const covered = Object.entries(fixtures).flatMap(([key, checks]) =>
      Object.keys(checks).map((slot) => `${key} ${slot}`),
    );

    expect(found.sort()).toEqual(covered.sort());
  });

  const cases = Object.entries(fixtures).flatMap(([key, checks]) =>
    Object.entries(checks).map(([slot, check]) => ({
      name: `${key} ${slot}`,
      slot,
      check: check as IdCheck,
    })),
  );

  for (const { name, slot, check } of cases) {
    it(`when B sends A’s id in ${name}, then it gets exactly what an unknown id gets and nothing is written`, async () => {
      const foreignId = ofA[check.kind];
      if (!foreignId) throw new Error(`the fixture world has no ${check.kind} of A`);
      const unknownId = newId(check.kind);
      const send = async (id: string) => {
        const { method, path, body } = check.request(id, ofB);
        return b.api.request(method, path, body === undefined ? {} : { body });
      };
      const before = await rowCounts(server);

      const unknown = await send(unknownId);
      const foreign = await send(foreignId);

      expect(await rowCounts(server)).toEqual(before);
      expect(unknown.status).toBe(
        slot.startsWith('body:') ? 422 : slot.startsWith('query:filter[') ? 200 : 404,
      );
      expect(foreign.status).toBe(unknown.status);
      expect(foreign.headers.get('content-type')).toBe(unknown.headers.get('content-type'));
      expect(withoutId(foreign.body, foreignId)).toEqual(withoutId(unknown.body, unknownId));
      if (slot.startsWith('body:')) {
        const field = slot.slice('body:'.length);
        expect(foreign.body.errors.map((error: Json) => error.path)).toEqual([
          expect.stringMatching(new RegExp(`^(/0)?/${field}(/0)?$`)),
        ]);
      }
    });
  }
});
