/* What the tests of POST and GET /customers share (customers, customers-validation, customers-list). */

export const problemType = 'application/problem+json; charset=utf-8';

/** A body with every field of the contract's "Customer (as created)" table. */
export const everyField = {
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
