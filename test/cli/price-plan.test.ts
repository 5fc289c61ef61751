import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiClient, startTestServer, type TestServer, tempDatabasePath } from '../helpers/app.js';
import { runCli } from '../helpers/cli.js';

const planId = expect.stringMatching(/^ppl_[0-9a-z]{26}$/);

/** A rule as the CLI prints it: every criterion present, null when not set. */
function rule(fields: {
  network?: string;
  technology_type?: string;
  connection_type?: string;
  mrc: number;
  nrc: number;
}) {
  return {
    network: fields.network ?? null,
    technology_type: fields.technology_type ?? null,
    connection_type: fields.connection_type ?? null,
    mrc_markup_percent: fields.mrc,
    nrc_markup_percent: fields.nrc,
  };
}

/** The demo plans of `data/price-plans/demo.json`, as `price-plan list` prints them. */
const demoPlans = [
  {
    id: planId,
    name: 'Standard',
    is_default: true,
    mrc_markup_percent: 25,
    nrc_markup_percent: 15,
    rules: [
      rule({ connection_type: 'DIA', mrc: 30, nrc: 20 }),
      rule({ network: 'KPN', mrc: 22, nrc: 12 }),
      rule({ network: 'KPN', connection_type: 'DIA', mrc: 28, nrc: 18 }),
      rule({ technology_type: 'FTTH', mrc: 18, nrc: 10 }),
      rule({ network: 'Ziggo', technology_type: 'FIBER', connection_type: 'SHARED', mrc: 20, nrc: 0 }),
    ],
  },
  {
    id: planId,
    name: 'Partner',
    is_default: false,
    mrc_markup_percent: 12.5,
    nrc_markup_percent: 5,
    rules: [
      rule({ connection_type: 'DIA', mrc: 15, nrc: 7.5 }),
      rule({ network: 'KPN', connection_type: 'DIA', mrc: 14, nrc: 6 }),
    ],
  },
];

const database = tempDatabasePath();
let server: TestServer;

// The service runs on the same database throughout: customers are created through its API.
beforeAll(async () => {
  server = await startTestServer({ databasePath: database.path });
});

afterAll(async () => {
  await server.close();
  database.remove();
});

const listPlans = async (instance: string) => {
  const result = await runCli(database.path, ['price-plan', 'list', '--instance', instance]);
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
  return JSON.parse(result.stdout);
};

describe('price-plan list', () => {
  it('when the instance was created with --demo-catalog, then prints the two demo plans, default first', async () => {
    const created = await runCli(database.path, [
      'instance',
      'create',
      '--name',
      'Demo Telecom',
      '--code',
      'DEMO',
      '--demo-catalog',
    ]);
    expect(created.code).toBe(0);

    const byCode = await listPlans('DEMO');
    const byId = await listPlans(JSON.parse(created.stdout).id);

    expect(byCode).toEqual(demoPlans);
    expect(byId).toEqual(byCode);
  });

  it('when the instance is unknown, then exits 1 with NOT_FOUND', async () => {
    const result = await runCli(database.path, ['price-plan', 'list', '--instance', 'NOPE']);

    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(JSON.parse(result.stderr)).toEqual({
      error: 'NOT_FOUND',
      message: 'Instance "NOPE" was not found.',
      problems: [],
    });
  });
});

describe('price-plan create', () => {
  beforeAll(async () => {
    await server.tenant({ code: 'PLAIN', demoCatalog: false });
  });

  const create = (args: string[]) =>
    runCli(database.path, ['price-plan', 'create', '--instance', 'PLAIN', ...args]);

  it('when given markups and --rules, then prints the plan and lists it after the default', async () => {
    const rules = [
      { network: 'KPN', connection_type: 'DIA', mrc_markup_percent: 30, nrc_markup_percent: 20 },
      { technology_type: 'FTTH', mrc_markup_percent: 7.25, nrc_markup_percent: -2.5 },
    ];

    const result = await create([
      '--name',
      'Wholesale',
      '--mrc-markup',
      '10.5',
      '--nrc-markup',
      '0',
      '--rules',
      JSON.stringify(rules),
    ]);

    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const wholesale = {
      id: planId,
      name: 'Wholesale',
      is_default: false,
      mrc_markup_percent: 10.5,
      nrc_markup_percent: 0,
      rules: [
        rule({ network: 'KPN', connection_type: 'DIA', mrc: 30, nrc: 20 }),
        rule({ technology_type: 'FTTH', mrc: 7.25, nrc: -2.5 }),
      ],
    };
    expect(JSON.parse(result.stdout)).toEqual(wholesale);
    expect(await listPlans('PLAIN')).toEqual([
      {
        id: planId,
        name: 'Standard',
        is_default: true,
        mrc_markup_percent: 0,
        nrc_markup_percent: 0,
        rules: [],
      },
      { ...wholesale, id: JSON.parse(result.stdout).id },
    ]);
  });

  it('when created with --default, then it takes the default over from the previous one', async () => {
    await server.tenant({ code: 'SWAP', demoCatalog: false });

    const result = await runCli(database.path, [
      'price-plan',
      'create',
      '--instance',
      'SWAP',
      '--name',
      'Premium',
      '--mrc-markup',
      '40',
      '--nrc-markup',
      '20',
      '--default',
    ]);

    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ name: 'Premium', is_default: true });
    const plans = await listPlans('SWAP');
    expect(plans.map((plan: { name: string; is_default: boolean }) => [plan.name, plan.is_default])).toEqual([
      ['Premium', true],
      ['Standard', false],
    ]);
  });

  it('when a markup has three decimals, then exits 1 with VALIDATION and creates nothing', async () => {
    const before = await listPlans('PLAIN');

    const result = await create(['--name', 'Precise', '--mrc-markup', '12.345', '--nrc-markup', '5']);

    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(JSON.parse(result.stderr)).toEqual({
      error: 'VALIDATION',
      message: 'The price plan is invalid.',
      // The path names the markup; which spelling an option maps to is left open (see the --rules case).
      problems: [
        { path: expect.stringMatching(/^\/mrc_?markup_?percent$/i), message: 'at most two decimals' },
      ],
    });
    expect(await listPlans('PLAIN')).toEqual(before);
  });

  it('when a rule in --rules has three decimals, then exits 1 with VALIDATION naming the rule', async () => {
    const result = await create([
      '--name',
      'Precise rules',
      '--mrc-markup',
      '12',
      '--nrc-markup',
      '5',
      '--rules',
      '[{"network":"KPN","mrc_markup_percent":1.005,"nrc_markup_percent":1}]',
    ]);

    // The operator wrote snake_case keys, and the CLI prints snake_case, so the path names the key as written.
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(JSON.parse(result.stderr)).toEqual({
      error: 'VALIDATION',
      message: 'The price plan is invalid.',
      problems: [{ path: '/rules/0/mrc_markup_percent', message: 'at most two decimals' }],
    });
  });

  it('when --rules is not JSON, then exits 1 with VALIDATION', async () => {
    const result = await create([
      '--name',
      'Broken',
      '--mrc-markup',
      '1',
      '--nrc-markup',
      '1',
      '--rules',
      '[{',
    ]);

    expect(result.code).toBe(1);
    expect(JSON.parse(result.stderr)).toEqual({
      error: 'VALIDATION',
      message: expect.stringMatching(/^--rules is not valid JSON: /),
      problems: [],
    });
  });

  it('when the name is taken, then exits 1 with CONFLICT', async () => {
    const before = await listPlans('PLAIN');

    const result = await create(['--name', 'Standard', '--mrc-markup', '1', '--nrc-markup', '1']);

    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(JSON.parse(result.stderr)).toEqual({
      error: 'CONFLICT',
      message: 'A price plan named "Standard" exists already.',
      problems: [],
    });
    expect(await listPlans('PLAIN')).toEqual(before);
  });
});

describe('price-plan assign', () => {
  let api: ApiClient;
  let partnerId: string;

  beforeAll(async () => {
    api = (await server.tenant({ code: 'ASSIGN' })).api;
    partnerId = (await listPlans('ASSIGN')).find((plan: { name: string }) => plan.name === 'Partner').id;
  });

  const assign = (customer: string, plan: string) =>
    runCli(database.path, [
      'price-plan',
      'assign',
      '--instance',
      'ASSIGN',
      '--customer',
      customer,
      '--plan',
      plan,
    ]);

  it('when a customer made over the API is given the partner plan, then the list shows that plan', async () => {
    const created = await api.post('/customers', { name: 'Partner Customer' });
    const customerId: string = created.body.data.id;
    expect(created.body.data.price_plan.name).toBe('Standard');

    const result = await assign(customerId, partnerId);

    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({ customer_id: customerId, price_plan_id: partnerId });
    const listed = await api.get('/customers?filter[name]=partner');
    expect(listed.body.data).toEqual([
      { ...created.body.data, price_plan: { id: partnerId, name: 'Partner', _document_type: 'price_plan' } },
    ]);
  });

  it('when the customer is unknown or another instance’s, then exits 1 with NOT_FOUND', async () => {
    const stranger = await server.tenant({ code: 'OTHER' });
    const foreignId: string = (await stranger.api.post('/customers', { name: 'Foreign' })).body.data.id;

    const unknown = await assign('cus_01m81c3718e04ss8zkx0k227dm', partnerId);
    const foreign = await assign(foreignId, partnerId);

    expect(unknown.code).toBe(1);
    expect(unknown.stdout).toBe('');
    expect(JSON.parse(unknown.stderr)).toEqual({
      error: 'NOT_FOUND',
      message: 'Customer "cus_01m81c3718e04ss8zkx0k227dm" was not found.',
      problems: [],
    });
    expect(foreign.code).toBe(1);
    expect(JSON.parse(foreign.stderr).error).toBe('NOT_FOUND');
    expect((await stranger.api.get('/customers')).body.data[0].price_plan.name).toBe('Standard');
  });

  it('when the plan belongs to another instance, then exits 1 with NOT_FOUND and changes nothing', async () => {
    const customerId: string = (await api.post('/customers', { name: 'Kept Customer' })).body.data.id;
    await server.tenant({ code: 'FRGN', demoCatalog: false });
    const [foreignPlan] = await listPlans('FRGN');

    const result = await assign(customerId, foreignPlan.id);

    expect(result.code).toBe(1);
    expect(JSON.parse(result.stderr)).toEqual({
      error: 'NOT_FOUND',
      message: `Price plan "${foreignPlan.id}" was not found.`,
      problems: [],
    });
    const listed = await api.get('/customers?filter[name]=kept');
    expect(listed.body.data[0].price_plan.name).toBe('Standard');
  });
});
