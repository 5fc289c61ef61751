import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { availabilityRequestProducts } from '../../src/db/sqlite/schema/index.js';
import { applyMarkup } from '../../src/gathering/pricing.js';
import {
  type ApiClient,
  type Json,
  startTestServer,
  type TestServer,
  type TestTenant,
  waitFor,
} from '../helpers/app.js';
import { countStoredRows, storedRows } from '../helpers/store.js';

const problemType = 'application/problem+json; charset=utf-8';
const address = { country_code: 'NL', postal_code: '1016XA', house_number: '206' };

interface PlanRule {
  network?: string;
  technology_type?: string;
  connection_type?: string;
  mrc_markup_percent: number;
  nrc_markup_percent: number;
}
interface PlanFile {
  plans: { name: string; mrc_markup_percent: number; nrc_markup_percent: number; rules: PlanRule[] }[];
}
type StoredProduct = typeof availabilityRequestProducts.$inferSelect;

const demoPlans = (
  JSON.parse(readFileSync(new URL('../../data/price-plans/demo.json', import.meta.url), 'utf8')) as PlanFile
).plans;

/**
 * The markups (basis points) a demo plan gives a product, chosen here independently of the code under
 * test: among the rules matching every criterion they set, most criteria first, then network before
 * technology before connection type.
 */
function expectedMarkupBp(planName: string, product: StoredProduct): { mrc: number; nrc: number } {
  const plan = demoPlans.find((candidate) => candidate.name === planName);
  if (!plan) throw new Error(`no demo plan ${planName}`);
  const criteria = (rule: PlanRule) => [rule.network, rule.technology_type, rule.connection_type];
  const matching = plan.rules.filter(
    (rule) =>
      (rule.network ?? product.network) === product.network &&
      (rule.technology_type ?? product.technologyType) === product.technologyType &&
      (rule.connection_type ?? product.connectionType) === product.connectionType,
  );
  const rank = (rule: PlanRule) => {
    const set = criteria(rule).map((value): number => (value === undefined ? 0 : 1));
    return [set.reduce((sum, one) => sum + one, 0), ...set];
  };
  matching.sort((a, b) => {
    const [ra, rb] = [rank(a), rank(b)];
    const differs = ra.findIndex((value, index) => value !== rb[index]);
    return differs === -1 ? 0 : (rb[differs] ?? 0) - (ra[differs] ?? 0);
  });
  const chosen = matching[0] ?? plan;
  return {
    mrc: Math.round(chosen.mrc_markup_percent * 100),
    nrc: Math.round(chosen.nrc_markup_percent * 100),
  };
}

/** The offers of the NL demo catalogue at 1016XA (Amsterdam centrum), as `network/…/mrc/nrc` lines. */
function catalogueOffersAt1016(): string[] {
  const catalogue = JSON.parse(
    readFileSync(new URL('../../data/catalogs/nl-demo.json', import.meta.url), 'utf8'),
  );
  const networkOf = new Map<string, string>(
    catalogue.sources.map((source: Json) => [source.key, source.network]),
  );
  return catalogue.offers
    .filter((offer: Json) => offer.areas === '*' || offer.areas.includes('amsterdam-centrum'))
    .flatMap((offer: Json) =>
      Object.entries(offer.prices).map(
        ([term, price]: [string, Json]) =>
          `${networkOf.get(offer.source)}/${offer.technology_type}/${offer.connection_type}/` +
          `${offer.bandwidth.download}/${offer.bandwidth.upload}/${term}/${price.mrc}/${price.nrc}`,
      ),
    )
    .sort();
}

const offerLine = (p: StoredProduct) =>
  `${p.network}/${p.technologyType}/${p.connectionType}/${p.downloadKbps}/${p.uploadKbps}/` +
  `${p.contractTermMonths}/${p.purchaseMrcMinor}/${p.purchaseNrcMinor}`;

async function createCustomer(api: ApiClient, body: Record<string, unknown>): Promise<string> {
  const response = await api.post('/customers', body);
  if (response.status !== 201) throw new Error(`customer not created: ${JSON.stringify(response.body)}`);
  return response.body.data.id;
}

async function createRequest(api: ApiClient, attachment: Record<string, string> = {}): Promise<string> {
  const response = await api.post('/availability-requests', [{ address, ...attachment }]);
  if (response.status !== 201) throw new Error(`request not created: ${JSON.stringify(response.body)}`);
  return response.body.data[0].id;
}

describe('customer-specific pricing over REST', () => {
  let server: TestServer;
  let tenant: TestTenant;
  let partnerPlanId: string;
  let standardPlanId: string;

  beforeAll(async () => {
    server = await startTestServer();
    tenant = await server.tenant({ roles: ['instance_admin', 'connectivity_check'] });
    const plans = await tenant.api.graphql('{ pricePlans { id name } }');
    const idOf = (name: string) => plans.data.pricePlans.find((plan: Json) => plan.name === name).id;
    partnerPlanId = idOf('Partner');
    standardPlanId = idOf('Standard');
  });
  afterAll(() => server.close());

  const rowCounts = () =>
    Promise.all(
      (['addresses', 'availabilityRequests', 'gatheringTasks'] as const).map((table) =>
        countStoredRows(server.app.services.db, table),
      ),
    );

  /** Waits for the request to complete; returns its REST products and its stored rows in one order. */
  async function gathered(id: string): Promise<{ rest: Json[]; stored: StoredProduct[] }> {
    const response = await waitFor(
      () => tenant.api.get(`/availability-requests/${id}`),
      (r) => r.body.data.status === 'completed',
    );
    const rows = (await storedRows(server.app.services.db, 'availabilityRequestProducts', {
      availabilityRequestId: id,
    })) as StoredProduct[];
    const stored = rows.sort((a, b) => offerLine(a).localeCompare(offerLine(b)));
    return { rest: response.body.data.products, stored };
  }

  /** Asserts every product's stored and REST sale prices are what the plan's rules give; returns the bps used. */
  function expectPricedWith(planName: string, { rest, stored }: { rest: Json[]; stored: StoredProduct[] }) {
    expect(stored.map(offerLine)).toEqual(catalogueOffersAt1016());
    expect(rest.map((product) => product.id).sort()).toEqual(stored.map((product) => product.id).sort());
    const markups = new Set<number>();
    for (const product of stored) {
      const bp = expectedMarkupBp(planName, product);
      markups.add(bp.mrc);
      expect([product.mrcMinor, product.nrcMinor]).toEqual([
        applyMarkup(product.purchaseMrcMinor, bp.mrc),
        applyMarkup(product.purchaseNrcMinor, bp.nrc),
      ]);
      const shown = rest.find((candidate) => candidate.id === product.id);
      expect([shown.mrc, shown.nrc, shown.currency]).toEqual([
        product.mrcMinor / 100,
        product.nrcMinor / 100,
        'EUR',
      ]);
    }
    return [...markups].sort((a, b) => a - b);
  }

  const pricePlanOf = async (id: string) => {
    const [row] = (await storedRows(server.app.services.db, 'availabilityRequests', { id })) as {
      pricePlanId: string;
    }[];
    return row?.pricePlanId;
  };

  it('when the same address is requested for a Partner and a Standard customer, then each is priced exactly by its plan and every price differs', async () => {
    const partner = await createCustomer(tenant.api, { name: 'Partner Customer B.V.' });
    const standard = await createCustomer(tenant.api, { name: 'Standard Customer B.V.' });
    const assigned = await tenant.api.graphql(
      'mutation ($c: ID!, $p: ID!) { assignPricePlan(customerId: $c, pricePlanId: $p) { customer { id pricePlan { name } } } }',
      { c: partner, p: partnerPlanId },
    );
    expect(assigned).toEqual({
      data: { assignPricePlan: { customer: { id: partner, pricePlan: { name: 'Partner' } } } },
    });

    const partnerId = await createRequest(tenant.api, { customer_id: partner });
    const standardId = await createRequest(tenant.api, { customer_id: standard });
    const partnerProducts = await gathered(partnerId);
    const standardProducts = await gathered(standardId);

    expect([await pricePlanOf(partnerId), await pricePlanOf(standardId)]).toEqual([
      partnerPlanId,
      standardPlanId,
    ]);
    // Every rule of each plan is exercised at this address, so the selection is really under test.
    expect(expectPricedWith('Partner', partnerProducts)).toEqual([1250, 1400, 1500]);
    expect(expectPricedWith('Standard', standardProducts)).toEqual([1800, 2000, 2200, 2500, 2800, 3000]);
    expect(partnerProducts.stored.length).toBe(standardProducts.stored.length);
    partnerProducts.stored.forEach((product, index) => {
      const other = standardProducts.stored[index];
      expect(offerLine(product)).toBe(other && offerLine(other));
      expect(product.mrcMinor).not.toBe(other?.mrcMinor);
      expect(product.nrcMinor).not.toBe(other?.nrcMinor);
    });
  });

  it('when a request names no customer, then the instance default (Standard) prices it', async () => {
    const id = await createRequest(tenant.api);

    const products = await gathered(id);

    expect(await pricePlanOf(id)).toBe(standardPlanId);
    expect(expectPricedWith('Standard', products)).toEqual([1800, 2000, 2200, 2500, 2800, 3000]);
  });

  it('when a request names only a project, then the project’s customer’s plan prices it', async () => {
    const customer = await createCustomer(tenant.api, { name: 'Project Owner B.V.' });
    await tenant.api.graphql(
      'mutation ($c: ID!, $p: ID!) { assignPricePlan(customerId: $c, pricePlanId: $p) { customer { id } } }',
      {
        c: customer,
        p: partnerPlanId,
      },
    );
    const project = await tenant.api.post('/projects', { customer_id: customer, name: 'Office move' });
    expect(project.status).toBe(201);

    const id = await createRequest(tenant.api, { project_id: project.body.data.id });
    const products = await gathered(id);

    const [stored] = await storedRows(server.app.services.db, 'availabilityRequests', { id });
    expect(stored).toMatchObject({ customerId: customer, projectId: project.body.data.id });
    expect(await pricePlanOf(id)).toBe(partnerPlanId);
    expect(expectPricedWith('Partner', products)).toEqual([1250, 1400, 1500]);
  });

  it('when a request names a customer and another customer’s project, then 422 at /0/project_id and nothing is written', async () => {
    const owner = await createCustomer(tenant.api, { name: 'Owner B.V.' });
    const stranger = await createCustomer(tenant.api, { name: 'Stranger B.V.' });
    const project = await tenant.api.post('/projects', { customer_id: owner, name: 'Owner project' });
    const before = await rowCounts();

    const response = await tenant.api.post('/availability-requests', [
      { address, customer_id: stranger, project_id: project.body.data.id },
    ]);

    expect(response.status).toBe(422);
    expect(response.headers.get('content-type')).toBe(problemType);
    expect(response.body).toEqual({
      type: 'urn:connectivity-gateway:problem:validation',
      title: 'Invalid input',
      status: 422,
      detail: 'The availability requests are invalid; none was created.',
      errors: [{ path: '/0/project_id', message: 'belongs to another customer than customerId' }],
    });
    expect(await rowCounts()).toEqual(before);
  });

  it('when a request names another instance’s customer or project, then 422 "not found" at its path and nothing is written', async () => {
    const other = await server.tenant();
    const foreignCustomer = await createCustomer(other.api, { name: 'Foreign B.V.' });
    const foreignProject = await other.api.post('/projects', {
      customer_id: foreignCustomer,
      name: 'Foreign',
    });
    const before = await rowCounts();

    const responses = await Promise.all([
      tenant.api.post('/availability-requests', [{ address, customer_id: foreignCustomer }]),
      tenant.api.post('/availability-requests', [
        { address },
        { address, project_id: foreignProject.body.data.id },
      ]),
    ]);

    expect(responses.map((response) => [response.status, response.body.errors])).toEqual([
      [422, [{ path: '/0/customer_id', message: 'customer was not found' }]],
      [422, [{ path: '/1/project_id', message: 'project was not found' }]],
    ]);
    expect(await rowCounts()).toEqual(before);
  });
});

describe('monthly availability-request limit', () => {
  let server: TestServer;
  let tenant: TestTenant;
  let api: ApiClient;
  let limited: string;

  beforeAll(async () => {
    server = await startTestServer();
    tenant = await server.tenant({ roles: ['instance_admin', 'connectivity_check'] });
    api = tenant.api;
    limited = await createCustomer(api, { name: 'Limited B.V.', monthly_availability_request_limit: 3 });
  });
  afterAll(() => server.close());

  const batch = (size: number, customerId = limited) =>
    Array.from({ length: size }, () => ({ address, customer_id: customerId }));
  const total = async () => (await api.get('/availability-requests?page_size=1')).body.pagination.total_items;
  const exceeded = (remain: number, asked: number, name = 'Limited B.V.', limit = 3) => ({
    type: 'urn:connectivity-gateway:problem:limit-exceeded',
    title: 'Limit exceeded',
    status: 429,
    detail:
      `Customer "${name}" may have ${limit} availability requests per calendar month (UTC); ` +
      `${remain} remain this month and this call asks for ${asked}. Nothing was created.`,
  });
  /** Moves the server clock and signs in again, since auth tokens live one hour of that clock. */
  async function advanceTo(at: number) {
    server.clock.advance(at - server.clock.now().getTime());
    const signIn = await server.anonymous.post('/authentication', {
      client_id: tenant.clientId,
      client_secret: tenant.clientSecret,
    });
    api = server.anonymous.withToken(signIn.body.data.auth_token);
  }

  it('when batches reach the limit of 3, then the one that would exceed it gets 429 and creates nothing, and the month after resets it', async () => {
    const first = await api.post('/availability-requests', batch(2));
    expect(first.status).toBe(201);
    const afterFirst = await total();

    const tooMany = await api.post('/availability-requests', batch(2));
    expect(tooMany.status).toBe(429);
    expect(tooMany.headers.get('content-type')).toBe(problemType);
    expect(tooMany.body).toEqual(exceeded(1, 2));
    expect(await total()).toBe(afterFirst);

    const last = await api.post('/availability-requests', batch(1));
    expect(last.status).toBe(201);
    const full = await api.post('/availability-requests', batch(1));
    expect([full.status, full.body]).toEqual([429, exceeded(0, 1)]);
    const project = await api.post('/projects', { customer_id: limited, name: 'Via project' });
    const viaProject = await api.post('/availability-requests', [
      { address, project_id: project.body.data.id },
    ]);
    expect([viaProject.status, viaProject.body]).toEqual([429, exceeded(0, 1)]);
    const unattached = await api.post('/availability-requests', [{ address }]);
    expect(unattached.status).toBe(201);
    expect(await total()).toBe(afterFirst + 2);

    const now = server.clock.now();
    const nextMonth = Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1);
    await advanceTo(nextMonth - 10_000);
    const lastSecondsOfMonth = await api.post('/availability-requests', batch(1));
    expect([lastSecondsOfMonth.status, lastSecondsOfMonth.body]).toEqual([429, exceeded(0, 1)]);

    await advanceTo(nextMonth + 1_000);
    const nextMonthBatch = await api.post('/availability-requests', batch(3));
    expect(nextMonthBatch.status).toBe(201);
    const overAgain = await api.post('/availability-requests', batch(1));
    expect([overAgain.status, overAgain.body]).toEqual([429, exceeded(0, 1)]);
    expect(await total()).toBe(afterFirst + 5);
  });

  it('when createAvailabilityRequests goes over the limit, then GraphQL answers LIMIT_EXCEEDED and creates nothing', async () => {
    const customer = await createCustomer(api, { name: 'Small B.V.', monthly_availability_request_limit: 1 });
    expect((await api.post('/availability-requests', batch(1, customer))).status).toBe(201);
    const before = await total();
    const element = { address: { countryCode: 'NL', postalCode: '1016XA', houseNumber: '206' } };

    const result = await api.graphql(
      'mutation ($input: [AvailabilityRequestInput!]!) { createAvailabilityRequests(input: $input) { message } }',
      { input: [element, { ...element, customerId: customer }] },
    );

    expect(result.data).toBeNull();
    expect(result.errors?.[0]?.extensions).toEqual({ code: 'LIMIT_EXCEEDED' });
    expect(result.errors?.[0]?.message).toBe(exceeded(0, 1, 'Small B.V.', 1).detail);
    expect(await total()).toBe(before);
  });
});
