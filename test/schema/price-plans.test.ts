import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiClient, type Json, startTestServer, type TestServer } from '../helpers/app.js';
import { admin, createCustomer } from './customers-fixtures.js';

const PLAN_FIELDS = `id name isDefault mrcMarkupPercent nrcMarkupPercent
  rules { network technologyType connectionType mrcMarkupPercent nrcMarkupPercent }`;
const PRICE_PLANS = `{ pricePlans { ${PLAN_FIELDS} } }`;
const CREATE_PLAN = `mutation ($input: CreatePricePlanInput!) { createPricePlan(input: $input) { pricePlan { ${PLAN_FIELDS} } } }`;
const ASSIGN = `mutation ($c: ID!, $p: ID!) { assignPricePlan(customerId: $c, pricePlanId: $p) { customer { id pricePlan { name } } } }`;

/** A price plan as GraphQL answers it. */
const plan = (fields: Record<string, unknown>, rules: unknown[]) => ({
  id: expect.stringMatching(/^ppl_/),
  ...fields,
  rules,
});

/** A price-plan rule as GraphQL answers it. */
const rule = (criteria: Record<string, string>, mrcMarkupPercent: number, nrcMarkupPercent: number) => {
  const any = { network: null, technologyType: null, connectionType: null };
  return { ...any, ...criteria, mrcMarkupPercent, nrcMarkupPercent };
};

describe('price plans over GraphQL', () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.close());

  it('when a connectivity_check-only user asks for price plans, then FORBIDDEN', async () => {
    const user = await server.tenant({ roles: ['connectivity_check'] });

    const result = await user.api.graphql(PRICE_PLANS);

    expect(result.data).toBeNull();
    expect(result.errors?.[0]?.extensions).toEqual({ code: 'FORBIDDEN' });
  });

  it('when an instance admin asks for price plans, then the two demo plans come with exact markups and rules', async () => {
    const tenant = await server.tenant({ roles: [...admin] });

    const result = await tenant.api.graphql(PRICE_PLANS);

    expect(result).toEqual({
      data: {
        pricePlans: [
          plan({ name: 'Standard', isDefault: true, mrcMarkupPercent: 25, nrcMarkupPercent: 15 }, [
            rule({ connectionType: 'DIA' }, 30, 20),
            rule({ network: 'KPN' }, 22, 12),
            rule({ network: 'KPN', connectionType: 'DIA' }, 28, 18),
            rule({ technologyType: 'FTTH' }, 18, 10),
            rule({ network: 'Ziggo', technologyType: 'FIBER', connectionType: 'SHARED' }, 20, 0),
          ]),
          plan({ name: 'Partner', isDefault: false, mrcMarkupPercent: 12.5, nrcMarkupPercent: 5 }, [
            rule({ connectionType: 'DIA' }, 15, 7.5),
            rule({ network: 'KPN', connectionType: 'DIA' }, 14, 6),
          ]),
        ],
      },
    });
  });

  it('when a plan with rules is created, then it is returned and listed exactly; its name again is a CONFLICT', async () => {
    const tenant = await server.tenant({ roles: [...admin] });
    const input = {
      name: 'Enterprise',
      mrcMarkupPercent: 33.33,
      nrcMarkupPercent: 0,
      rules: [
        { network: 'Colt', mrcMarkupPercent: 40, nrcMarkupPercent: 10.05 },
        { technologyType: 'FIBER', connectionType: 'DIA', mrcMarkupPercent: -12.5, nrcMarkupPercent: -100 },
      ],
    };

    const created = await tenant.api.graphql(CREATE_PLAN, { input });
    const again = await tenant.api.graphql(CREATE_PLAN, { input: { ...input, rules: [] } });

    const enterprise = plan(
      { name: 'Enterprise', isDefault: false, mrcMarkupPercent: 33.33, nrcMarkupPercent: 0 },
      [
        rule({ network: 'Colt' }, 40, 10.05),
        rule({ technologyType: 'FIBER', connectionType: 'DIA' }, -12.5, -100),
      ],
    );
    expect(created).toEqual({ data: { createPricePlan: { pricePlan: enterprise } } });
    const listed = (await tenant.api.graphql(PRICE_PLANS)).data.pricePlans;
    expect(listed.map((p: Json) => p.name)).toEqual(['Standard', 'Enterprise', 'Partner']);
    expect(listed[1]).toEqual({ ...enterprise, id: created.data.createPricePlan.pricePlan.id });
    expect(again.data).toBeNull();
    expect(again.errors?.[0]?.extensions).toEqual({ code: 'CONFLICT' });
  });

  it('when a markup has three decimals, then BAD_USER_INPUT names it', async () => {
    const tenant = await server.tenant({ roles: [...admin] });

    const odd = { network: 'KPN', mrcMarkupPercent: 1.234, nrcMarkupPercent: 0 };
    const input = { name: 'Odd', mrcMarkupPercent: 10, nrcMarkupPercent: 0, rules: [odd] };

    const result = await tenant.api.graphql(CREATE_PLAN, { input });

    expect(result.data).toBeNull();
    expect(result.errors?.[0]?.extensions).toEqual({
      code: 'BAD_USER_INPUT',
      problems: [{ path: '/rules/0/mrcMarkupPercent', message: 'at most two decimals' }],
    });
  });

  it('when a plan is created as default, then it takes the default over and new customers get it', async () => {
    const tenant = await server.tenant({ roles: [...admin] });
    const before = await createCustomer(tenant.api, { name: 'Early B.V.' });

    const wholesale = { name: 'Wholesale', isDefault: true, mrcMarkupPercent: 5, nrcMarkupPercent: 0 };
    await tenant.api.graphql(CREATE_PLAN, { input: wholesale });
    const after = await createCustomer(tenant.api, { name: 'Late B.V.' });

    const plans = (await tenant.api.graphql(PRICE_PLANS)).data.pricePlans;
    expect(plans.map((p: Json) => [p.name, p.isDefault])).toEqual([
      ['Wholesale', true],
      ['Partner', false],
      ['Standard', false],
    ]);
    const customers = await tenant.api.graphql(
      'query ($a: ID!, $b: ID!) { a: customer(id: $a) { pricePlan { name } } b: customer(id: $b) { pricePlan { name } } }',
      { a: before, b: after },
    );
    expect(customers).toEqual({
      data: { a: { pricePlan: { name: 'Standard' } }, b: { pricePlan: { name: 'Wholesale' } } },
    });
  });

  it('when assignPricePlan names another instance’s plan or customer, then NOT_FOUND and nothing changes', async () => {
    const tenant = await server.tenant({ roles: [...admin] });
    const other = await server.tenant({ roles: [...admin] });
    const customer = await createCustomer(tenant.api, { name: 'Mine B.V.' });
    const foreignCustomer = await createCustomer(other.api, { name: 'Theirs B.V.' });
    const ownPartner = (await tenant.api.graphql(PRICE_PLANS)).data.pricePlans[1].id;
    const foreignPartner = (await other.api.graphql(PRICE_PLANS)).data.pricePlans[1].id;

    const foreignPlan = await tenant.api.graphql(ASSIGN, { c: customer, p: foreignPartner });
    const foreignCustomerResult = await tenant.api.graphql(ASSIGN, { c: foreignCustomer, p: ownPartner });

    const error = (result: Json) => [
      result.data,
      result.errors?.[0]?.extensions.code,
      result.errors?.[0]?.message,
    ];
    expect(error(foreignPlan)).toEqual([null, 'NOT_FOUND', `Price plan "${foreignPartner}" was not found.`]);
    expect(error(foreignCustomerResult)).toEqual([
      null,
      'NOT_FOUND',
      `Customer "${foreignCustomer}" was not found.`,
    ]);
    const planOf = (api: ApiClient, id: string) =>
      api.graphql(`{ customer(id: "${id}") { pricePlan { name } } }`);
    const plans = await Promise.all([planOf(tenant.api, customer), planOf(other.api, foreignCustomer)]);
    expect(plans.map((r) => r.data.customer.pricePlan.name)).toEqual(['Standard', 'Standard']);
  });
});
