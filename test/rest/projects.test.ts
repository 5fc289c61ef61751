import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer, type TestTenant } from '../helpers/app.js';

const problemType = 'application/problem+json; charset=utf-8';
const timestamp = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00$/);

describe('projects over REST', () => {
  let server: TestServer;
  let tenant: TestTenant;
  let stranger: TestTenant;
  let customerId: string;
  let otherCustomerId: string;
  let strangersCustomerId: string;

  beforeAll(async () => {
    server = await startTestServer();
    tenant = await server.tenant();
    stranger = await server.tenant();
    customerId = (await tenant.api.post('/customers', { name: 'ACME Telecom' })).body.data.id;
    otherCustomerId = (await tenant.api.post('/customers', { name: 'Beta' })).body.data.id;
    strangersCustomerId = (await stranger.api.post('/customers', { name: 'Stranger' })).body.data.id;
  });
  afterAll(() => server.close());

  const projectsOf = (id: string, query = '') => tenant.api.get(`/projects?customer_id=${id}${query}`);

  it('when a project is created for a customer, then it answers 201 with the project and its customer', async () => {
    const created = await tenant.api.post('/projects', { customer_id: customerId, name: '  Office move  ' });

    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      data: {
        id: expect.stringMatching(/^prj_[0-9a-z]{26}$/),
        name: 'Office move',
        customer: { id: customerId, name: 'ACME Telecom', _document_type: 'customer' },
        created_at: timestamp,
        updated_at: timestamp,
        _document_type: 'project',
      },
    });
    expect(created.body.data.updated_at).toBe(created.body.data.created_at);
  });

  it('when a customer’s projects are listed, then they come oldest first, paged, and only that customer’s', async () => {
    const customer = (await tenant.api.post('/customers', { name: 'Gamma' })).body.data.id;
    const created = [];
    for (const name of ['Phase 1', 'Phase 2', 'Phase 3']) {
      created.push((await tenant.api.post('/projects', { customer_id: customer, name })).body.data);
      server.clock.advance(1000);
    }
    await tenant.api.post('/projects', { customer_id: otherCustomerId, name: 'Not Gamma’s' });

    const all = await projectsOf(customer);
    const second = await projectsOf(customer, '&page=2&page_size=2');

    expect(all.status).toBe(200);
    expect(all.body).toEqual({
      data: created,
      pagination: { page_size: 25, current_page: 1, total_items: 3, total_pages: 1 },
    });
    expect(second.body).toEqual({
      data: [created[2]],
      pagination: { page_size: 2, current_page: 2, total_items: 3, total_pages: 2 },
    });
  });

  it('when listed without a customer, then every project of the instance is listed and none of another', async () => {
    const mine = await tenant.api.get('/projects?page_size=100');
    const theirs = await stranger.api.get('/projects');

    expect(mine.body.data.length).toBeGreaterThan(0);
    expect(mine.body.pagination.total_items).toBe(mine.body.data.length);
    expect(
      mine.body.data.every(
        (project: { customer: { id: string } }) => project.customer.id !== strangersCustomerId,
      ),
    ).toBe(true);
    expect(theirs.body).toEqual({
      data: [],
      pagination: { page_size: 25, current_page: 1, total_items: 0, total_pages: 0 },
    });
  });

  it('when another instance’s customer id is posted, then it answers 422 naming customer_id and writes nothing', async () => {
    const before = (await tenant.api.get('/projects')).body.pagination.total_items;

    const response = await tenant.api.post('/projects', { customer_id: strangersCustomerId, name: 'Hijack' });

    expect(response.status).toBe(422);
    expect(response.headers.get('content-type')).toBe(problemType);
    expect(response.body).toEqual({
      type: 'urn:connectivity-gateway:problem:validation',
      title: 'Invalid input',
      status: 422,
      detail: 'The project is invalid; nothing was created.',
      errors: [{ path: '/customer_id', message: 'customer was not found' }],
    });
    expect((await tenant.api.get('/projects')).body.pagination.total_items).toBe(before);
    expect((await stranger.api.get(`/projects?customer_id=${strangersCustomerId}`)).body.data).toEqual([]);
  });

  it('when another instance’s customer id is listed, then it answers 404 exactly as for an unknown id', async () => {
    const foreign = await projectsOf(strangersCustomerId);
    const unknown = await projectsOf('cus_01m81c3718e04ss8zkx0k227dm');

    expect(foreign.status).toBe(404);
    expect(foreign.headers.get('content-type')).toBe(problemType);
    expect(foreign.body).toEqual({
      type: 'urn:connectivity-gateway:problem:not-found',
      title: 'Not found',
      status: 404,
      detail: `Customer "${strangersCustomerId}" was not found.`,
    });
    expect(unknown.status).toBe(404);
    expect(unknown.body.detail).toBe('Customer "cus_01m81c3718e04ss8zkx0k227dm" was not found.');
  });

  it.each([
    [
      'no name',
      () => ({ customer_id: customerId }),
      [{ path: '/name', message: 'Invalid input: expected string, received undefined' }],
    ],
    [
      'a blank name',
      () => ({ customer_id: customerId, name: ' ' }),
      [{ path: '/name', message: 'is required' }],
    ],
    [
      'no customer',
      () => ({ name: 'Orphan' }),
      [{ path: '/customer_id', message: 'Invalid input: expected string, received undefined' }],
    ],
    [
      'an unknown field',
      () => ({ customer_id: customerId, name: 'Extra', budget: 100 }),
      [{ path: '/budget', message: 'is not a known field' }],
    ],
  ])('when the body has %s, then it answers 422 naming the field', async (_name, body, errors) => {
    const before = (await tenant.api.get('/projects')).body.pagination.total_items;

    const response = await tenant.api.post('/projects', body());

    expect(response.status).toBe(422);
    expect(response.headers.get('content-type')).toBe(problemType);
    expect(response.body.errors).toEqual(errors);
    expect((await tenant.api.get('/projects')).body.pagination.total_items).toBe(before);
  });

  it('when no token is sent, then it answers 401', async () => {
    const posted = await server.anonymous.post('/projects', { customer_id: customerId, name: 'Anonymous' });
    const listed = await server.anonymous.get(`/projects?customer_id=${customerId}`);

    expect([posted.status, listed.status]).toEqual([401, 401]);
    expect(posted.headers.get('content-type')).toBe(problemType);
  });
});
