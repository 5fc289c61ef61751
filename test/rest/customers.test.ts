import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Json, startTestServer, type TestServer, type TestTenant } from '../helpers/app.js';
import { storedRows } from '../helpers/store.js';

const problemType = 'application/problem+json; charset=utf-8';

/** A body with every field of the contract's "Customer (as created)" table. */
const everyField = {
  name: 'ACME Telecom',
  external_id: 'crm-4711',
  legal_name: 'ACME Telecom B.V.',
  business_registration_number: '12345678',
  website: 'https://acme.example/',
  interconnected: true,
  preferred_currency: 'EUR',
  monthly_availability_request_limit: 500,
  internal_notes: 'Prefers fibre.',
  agent_id: 'agent-7',
  network_name_override: 'ACME Net',
  customer_region: 'Randstad',
  financial_details: {
    name: 'ACME Finance',
    email: 'billing@acme.example',
    street: 'Lijnbaansgracht',
    house_number: '206',
    house_number_addition: 'H',
    postal_code: '1016 XA',
    city: 'Amsterdam',
    region: 'Noord-Holland',
    country_code: 'NL',
    vat_number: 'NL123456789B01',
    bank_account_number: 'NL91 ABNA 0417 1643 00',
    apply_vat: true,
    payment_term_days: 30,
  },
};

/** The calling user's id, read back through sign-in (the tenant helper keeps only the token). */
async function userIdOf(server: TestServer, tenant: TestTenant): Promise<string> {
  const signIn = await server.anonymous.post('/authentication', {
    client_id: tenant.clientId,
    client_secret: tenant.clientSecret,
  });
  return signIn.body.data.user.id;
}

/** A customer document as the list shows it, with the defaults a name-only create gets. */
function customerDocument(fields: {
  id: string;
  name: string;
  autoNumber: string;
  pricePlanId: string;
  userId: string;
  extra?: Record<string, unknown>;
}) {
  return {
    id: fields.id,
    price_plan: { id: fields.pricePlanId, name: 'Standard', _document_type: 'price_plan' },
    account_manager: { id: fields.userId, first_name: 'API client', last_name: '', _document_type: 'user' },
    interconnected: false,
    apply_vat: false,
    auto_number: fields.autoNumber,
    name: fields.name,
    external_id: '',
    legal_name: '',
    business_registration_number: '',
    website: '',
    _document_type: 'customer',
    ...fields.extra,
  };
}

describe('POST /customers', () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.close());

  it('when every field is given, then it answers 201 with the list record and stores every field', async () => {
    const tenant = await server.tenant();
    const userId = await userIdOf(server, tenant);
    const standard = await server.app.services.db.findDefaultPricePlan(tenant.instanceId);

    const created = await tenant.api.post('/customers', everyField);

    expect(created.status).toBe(201);
    const expected = customerDocument({
      id: expect.stringMatching(/^cus_[0-9a-z]{26}$/),
      name: 'ACME Telecom',
      autoNumber: '00001',
      pricePlanId: standard?.id ?? 'the default plan',
      userId,
      extra: {
        interconnected: true,
        apply_vat: true,
        external_id: 'crm-4711',
        legal_name: 'ACME Telecom B.V.',
        business_registration_number: '12345678',
        website: 'https://acme.example/',
      },
    });
    expect(created.body).toEqual({ data: expected });
    const listed = await tenant.api.get('/customers');
    expect(listed.status).toBe(200);
    expect(listed.body).toEqual({
      data: [created.body.data],
      pagination: { page_size: 25, current_page: 1, total_items: 1, total_pages: 1 },
    });
    const { db } = server.app.services;
    const id: string = created.body.data.id;
    const [row] = await storedRows(db, 'customers', { id });
    expect(row).toMatchObject({
      instanceId: tenant.instanceId,
      name: 'ACME Telecom',
      preferredCurrency: 'EUR',
      monthlyAvailabilityRequestLimit: 500,
      internalNotes: 'Prefers fibre.',
      agentId: 'agent-7',
      networkNameOverride: 'ACME Net',
      customerRegion: 'Randstad',
      pricePlanId: standard?.id,
      accountManagerUserId: userId,
    });
    expect((await storedRows(db, 'customerFinancialDetails', { customerId: id }))[0]).toEqual({
      customerId: id,
      name: 'ACME Finance',
      email: 'billing@acme.example',
      street: 'Lijnbaansgracht',
      houseNumber: '206',
      houseNumberAddition: 'H',
      postalCode: '1016XA',
      city: 'Amsterdam',
      region: 'Noord-Holland',
      countryCode: 'NL',
      vatNumber: 'NL123456789B01',
      bankAccountNumber: 'NL91ABNA0417164300',
      applyVat: true,
      paymentTermDays: 30,
    });
  });

  it('when only names are given, then numbers count up per instance and absent fields are empty', async () => {
    const tenant = await server.tenant();
    const other = await server.tenant();
    const userId = await userIdOf(server, tenant);

    const first = await tenant.api.post('/customers', { name: 'First' });
    const second = await tenant.api.post('/customers', { name: '  Second  ', financial_details: {} });
    const elsewhere = await other.api.post('/customers', { name: 'Elsewhere' });

    expect(second.status).toBe(201);
    expect(second.body.data).toEqual(
      customerDocument({
        id: expect.stringMatching(/^cus_/),
        name: 'Second',
        autoNumber: '00002',
        pricePlanId: first.body.data.price_plan.id,
        userId,
      }),
    );
    expect(first.body.data.auto_number).toBe('00001');
    expect(elsewhere.body.data.auto_number).toBe('00001');
    expect(elsewhere.body.data.price_plan.id).not.toBe(first.body.data.price_plan.id);
  });

  it('when 50 customers are created at once, then they get exactly the numbers 00001 to 00050', async () => {
    const tenant = await server.tenant();

    const responses = await Promise.all(
      Array.from({ length: 50 }, (_, index) => tenant.api.post('/customers', { name: `Bulk ${index}` })),
    );

    expect(responses.map((response) => response.status)).toEqual(Array(50).fill(201));
    const numbers = responses.map((response) => response.body.data.auto_number as string).sort();
    expect(numbers).toEqual(Array.from({ length: 50 }, (_, index) => String(index + 1).padStart(5, '0')));
    const listed = await tenant.api.get('/customers?page_size=100');
    expect(listed.body.pagination.total_items).toBe(50);
    expect(new Set(listed.body.data.map((record: { id: string }) => record.id)).size).toBe(50);
  });
});

describe('POST /customers: bad input is refused and writes nothing', () => {
  let server: TestServer;
  let tenant: TestTenant;

  beforeAll(async () => {
    server = await startTestServer();
    tenant = await server.tenant();
    await tenant.api.post('/customers', { name: 'Existing' });
  });
  afterAll(() => server.close());

  const totalItems = async () => (await tenant.api.get('/customers')).body.pagination.total_items;
  const withFinancial = (fields: Record<string, unknown>) => ({
    ...everyField,
    financial_details: { ...everyField.financial_details, ...fields },
  });

  const fd = '/financial_details';
  const iban = 'must be a valid IBAN';
  const vat = 'is not a VAT number in a known country format (e.g. NL123456789B01)';
  const currency = 'must be an ISO 4217 currency code, e.g. EUR';
  const country = 'must be an ISO 3166-1 alpha-2 country code, e.g. NL';
  const url = 'must be an http(s) URL';
  const negative = 'Too small: expected number to be >=0';
  const unknown = 'is not a known field';
  const missing = 'Invalid input: expected string, received undefined';
  const anId = 'ppl_01m81c3718e04ss8zkx0k227dm';

  it.each([
    [
      'an invalid IBAN',
      withFinancial({ bank_account_number: 'NL91ABNA0417164301' }),
      `${fd}/bank_account_number`,
      iban,
    ],
    ['an invalid VAT number', withFinancial({ vat_number: 'NL12345' }), `${fd}/vat_number`, vat],
    ['an unknown currency', { ...everyField, preferred_currency: 'XYZ' }, '/preferred_currency', currency],
    ['a lower-case currency', { ...everyField, preferred_currency: 'eur' }, '/preferred_currency', currency],
    // Without a postal code: one in the body would also be reported, as not being a postal code of XX.
    [
      'an unknown country',
      withFinancial({ country_code: 'XX', postal_code: null }),
      `${fd}/country_code`,
      country,
    ],
    ['an invalid e-mail', withFinancial({ email: 'billing@' }), `${fd}/email`, 'must be an e-mail address'],
    ['a website that is not a URL', { ...everyField, website: 'acme dot example' }, '/website', url],
    ['a website with another protocol', { ...everyField, website: 'ftp://acme.example' }, '/website', url],
    [
      'a negative limit',
      { ...everyField, monthly_availability_request_limit: -1 },
      '/monthly_availability_request_limit',
      negative,
    ],
    [
      'a negative payment term',
      withFinancial({ payment_term_days: -5 }),
      `${fd}/payment_term_days`,
      negative,
    ],
    [
      'a foreign postal code',
      withFinancial({ postal_code: '75001' }),
      `${fd}/postal_code`,
      'is not a postal code of NL',
    ],
    ['an auto_number', { ...everyField, auto_number: '00007' }, '/auto_number', unknown],
    ['a price_plan', { ...everyField, price_plan: { id: anId } }, '/price_plan', unknown],
    ['an instance_id', { ...everyField, instance_id: anId }, '/instance_id', unknown],
    ['a camelCase field', { ...everyField, legalName: 'ACME' }, '/legalName', unknown],
    ['no name', { legal_name: 'Nameless B.V.' }, '/name', missing],
    ['a blank name', { name: '   ' }, '/name', 'is required'],
  ])('when the body has %s, then it answers 422 naming %s', async (_name, body, path, message) => {
    const before = await totalItems();

    const response = await tenant.api.post('/customers', body);

    expect(response.status).toBe(422);
    expect(response.headers.get('content-type')).toBe(problemType);
    expect(response.body).toEqual({
      type: 'urn:connectivity-gateway:problem:validation',
      title: 'Invalid input',
      status: 422,
      detail: 'The customer is invalid; nothing was created.',
      errors: [{ path, message }],
    });
    expect(await totalItems()).toBe(before);
  });

  it('when several fields are invalid, then every one is named', async () => {
    const response = await tenant.api.post('/customers', {
      ...withFinancial({ email: 'nope', bank_account_number: 'NL00' }),
      preferred_currency: 'EURO',
    });

    expect(response.status).toBe(422);
    expect(response.body.errors.map((error: { path: string }) => error.path).sort()).toEqual([
      '/financial_details/bank_account_number',
      '/financial_details/email',
      '/preferred_currency',
    ]);
  });

  it('when the body is not JSON, then it answers 400 and creates nothing', async () => {
    const before = await totalItems();

    const response = await tenant.api.request('POST', '/customers', {
      raw: '{"name": ',
      headers: { 'content-type': 'application/json' },
    });

    expect(response.status).toBe(400);
    expect(response.headers.get('content-type')).toBe(problemType);
    expect(response.body.detail).toBe('The body is not valid JSON.');
    expect(await totalItems()).toBe(before);
  });

  it('when no token is sent, then POST and GET answer 401 and nothing is created', async () => {
    const before = await totalItems();

    const posted = await server.anonymous.post('/customers', { name: 'Anonymous' });
    const listed = await server.anonymous.get('/customers');

    for (const response of [posted, listed]) {
      expect(response.status).toBe(401);
      expect(response.headers.get('content-type')).toBe(problemType);
      expect(response.body).toEqual({
        type: 'urn:connectivity-gateway:problem:unauthenticated',
        title: 'Authentication required',
        status: 401,
        detail: 'Send a valid auth token in the X-Auth-Token header.',
      });
    }
    expect(await totalItems()).toBe(before);
  });
});

describe('GET /customers', () => {
  let server: TestServer;
  let tenant: TestTenant;
  let other: TestTenant;
  const names = [
    'Beta',
    'ACME Telecom',
    'Zeta',
    '100% Fibre',
    'Acme BV',
    'a_b Networks',
    'axb Networks',
    'Back\\slash',
    'beta',
  ];
  const idOf: Record<string, string> = {};

  beforeAll(async () => {
    server = await startTestServer();
    tenant = await server.tenant();
    other = await server.tenant();
    for (const name of names) idOf[name] = (await tenant.api.post('/customers', { name })).body.data.id;
    await other.api.post('/customers', { name: 'Acme Elsewhere' });
  });
  afterAll(() => server.close());

  const list = async (query: string) => {
    const response = await tenant.api.get(`/customers${query}`);
    expect(response.status).toBe(200);
    return response.body as Json;
  };
  const namesOf = (body: Json) => body.data.map((record: { name: string }) => record.name);
  const byName = (name: string) => `?filter[name]=${encodeURIComponent(name)}`;

  it('when filtered on acme, then it finds both ACME spellings and nothing else', async () => {
    const body = await list(byName('acme'));

    expect(namesOf(body)).toEqual(['Acme BV', 'ACME Telecom']);
    expect(body.pagination).toEqual({ page_size: 25, current_page: 1, total_items: 2, total_pages: 1 });
  });

  it.each([
    ['%', ['100% Fibre']],
    ['_', ['a_b Networks']],
    ['\\', ['Back\\slash']],
    ['a_b', ['a_b Networks']],
    ['ACME T', ['ACME Telecom']],
    ['nothing like it', []],
  ])('when filtered on %j, then the characters are matched literally', async (filter, expected) => {
    const body = await list(byName(filter));

    expect(namesOf(body)).toEqual(expected);
    expect(body.pagination.total_items).toBe(expected.length);
  });

  it('when not filtered, then it lists by name case-insensitively, equal names by id', async () => {
    const body = await list('');

    const betas = [idOf.Beta, idOf.beta].sort();
    expect(body.data.map((record: { id: string }) => record.id)).toEqual([
      idOf['100% Fibre'],
      idOf['a_b Networks'],
      idOf['Acme BV'],
      idOf['ACME Telecom'],
      idOf['axb Networks'],
      idOf['Back\\slash'],
      ...betas,
      idOf.Zeta,
    ]);
    expect(body.pagination).toEqual({ page_size: 25, current_page: 1, total_items: 9, total_pages: 1 });
  });

  it('when read 4 at a time, then three pages hold every customer exactly once', async () => {
    const all = await list('');

    const pages = [await list('?page=1&page_size=4'), await list('?page=2&page_size=4')];
    pages.push(await list('?page=3&page_size=4'));

    expect(pages.map((page) => page.pagination)).toEqual(
      [1, 2, 3].map((current_page) => ({
        page_size: 4,
        current_page,
        total_items: 9,
        total_pages: 3,
      })),
    );
    expect(pages.flatMap((page) => page.data)).toEqual(all.data);
    const filtered = await list(`${byName('NETWORKS')}&page=2&page_size=1`);
    expect(namesOf(filtered)).toEqual(['axb Networks']);
    expect(filtered.pagination).toEqual({ page_size: 1, current_page: 2, total_items: 2, total_pages: 2 });
  });

  it.each([
    ['page_size=101', '/page_size'],
    ['page_size=0', '/page_size'],
    ['page=0', '/page'],
  ])('when the query is %s, then it answers 422 naming %s', async (query, path) => {
    const response = await tenant.api.get(`/customers?${query}`);

    expect(response.status).toBe(422);
    expect(response.headers.get('content-type')).toBe(problemType);
    expect(response.body.errors).toEqual([{ path, message: expect.any(String) }]);
  });

  it('when another instance lists or filters, then it sees only its own customers', async () => {
    const everything = await other.api.get('/customers');
    const acme = await other.api.get(`/customers${byName('acme')}`);
    const mine = await list(byName('elsewhere'));

    expect(namesOf(everything.body)).toEqual(['Acme Elsewhere']);
    expect(namesOf(acme.body)).toEqual(['Acme Elsewhere']);
    expect(mine.data).toEqual([]);
  });
});
