import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer, type TestTenant } from '../helpers/app.js';
import { everyField, problemType } from './customers-fixtures.js';

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
