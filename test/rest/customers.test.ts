import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer, type TestTenant } from '../helpers/app.js';
import { storedRows } from '../helpers/store.js';
import { everyField } from './customers-fixtures.js';

/* Creating customers: what is answered and stored, and their numbers per instance. */

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
