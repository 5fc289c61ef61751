import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Json, startTestServer, type TestServer, type TestTenant } from '../helpers/app.js';
import { problemType } from './customers-fixtures.js';

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
