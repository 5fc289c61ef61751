import { existsSync, readFileSync } from 'node:fs';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { compileErrors, validate } from '@readme/openapi-parser';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import type { z } from 'zod';
import type * as documents from '../../src/rest/documents.js';
import { openApiDocument, openApiPath } from '../../src/rest/openapi/document.js';
import type * as schemas from '../../src/rest/openapi/responses.js';
import { serveApiDocs } from '../../src/rest/openapi/serve.js';
import type { Problem } from '../../src/rest/problem.js';
import { routes } from '../../src/rest/routes.js';
import {
  type ApiClient,
  contractExampleBatch,
  type Json,
  type JsonResponse,
  startTestServer,
  type TestServer,
  type TestTenant,
  waitFor,
} from '../helpers/app.js';
import { componentValidator, validateRestResponse } from '../helpers/openapi.js';
import { updateStoredRows } from '../helpers/store.js';

const packageJson = JSON.parse(
  readFileSync(fileURLToPath(new URL('../../package.json', import.meta.url)), 'utf8'),
) as { version: string };
const SWAGGER_UI_DIR = fileURLToPath(new URL('../../node_modules/swagger-ui-dist', import.meta.url));
const CHROMIUM = '/usr/bin/chromium';
const PROBLEM = 'application/problem+json; charset=utf-8';

describe('the OpenAPI document', () => {
  const document = openApiDocument();

  it('when built, then it is a valid OpenAPI 3.1 document named after the service and its version', async () => {
    const result = await validate(structuredClone(document) as never);

    expect(result.valid, result.valid ? '' : compileErrors(result)).toBe(true);
    expect(document.openapi).toBe('3.1.0');
    expect(document.info.title).toBe('Connectivity Gateway REST API');
    expect(document.info.version).toBe(packageJson.version);
    expect(document.servers).toEqual([{ url: '/' }]);
  });

  it('when built, then every route of the route table is an operation, with its path parameters', () => {
    const operations = Object.entries(document.paths).flatMap(([path, item]) =>
      Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`),
    );

    expect(operations.sort()).toEqual(
      routes.map((route) => `${route.method} ${openApiPath(route.path)}`).sort(),
    );
    for (const route of routes) {
      const operation = document.paths[openApiPath(route.path)]?.[route.method.toLowerCase()] as Json;
      const parameters = (operation.parameters ?? []).map((p: Json) => p.$ref);
      expect(parameters.includes('#/components/parameters/Id'), route.path).toBe(route.path.includes(':id'));
      expect(parameters.includes('#/components/parameters/IdempotencyKey'), route.path).toBe(
        route.method === 'POST' && route.authenticated,
      );
      expect(operation.security, route.path).toEqual(route.authenticated ? undefined : []);
      expect(Object.keys(operation.responses), route.path).toEqual(
        expect.arrayContaining(['429', '500', ...(route.authenticated ? ['401', '403'] : [])]),
      );
    }
  });

  it('when a query takes parameters, then they are the ones the routes read', () => {
    const names = (path: string) =>
      (document.paths[path] as Json).get.parameters.map(
        (p: Json) => (document.components.parameters as Json)[p.$ref.split('/').pop()].name,
      );

    expect(names('/availability-requests')).toEqual(['page', 'page_size']);
    expect(names('/customers')).toEqual(['filter[name]', 'page', 'page_size']);
    expect(names('/projects')).toEqual(['customer_id', 'page', 'page_size']);
    expect(names('/availability-requests/options')).toEqual(['country_code']);
  });

  it('when a request body is documented, then it is the resolver schema with the contract’s snake_case keys', () => {
    const batch = componentValidator('AvailabilityRequestBatch');
    const customer = componentValidator('CustomerInput');
    const quote = componentValidator('QuoteInput');

    expect(batch(contractExampleBatch)).toBe(true);
    expect(batch([{ address: { countryCode: 'NL' } }])).toBe(false);
    expect(batch([])).toBe(false);
    expect(customer({ name: 'ACME', financial_details: { payment_term_days: 30, apply_vat: true } })).toBe(
      true,
    );
    expect(customer({ legal_name: 'ACME B.V.' })).toBe(false);
    expect(quote({ name: 'Q', customer_id: 'cus_1', instance_product_ids: ['ipr_1'] })).toBe(true);
    expect(quote({ name: 'Q', customerId: 'cus_1' })).toBe(false);
    expect(componentValidator('AuthenticationRequest')({ client_id: 'a', client_secret: 'b' })).toBe(true);
  });

  it('when compiled, then every response schema has exactly the type its shaping function returns', () => {
    type Of<S extends z.ZodType> = z.output<S>;
    type Returns<F extends (...args: never[]) => unknown> = ReturnType<F>;
    expectTypeOf<Of<typeof schemas.addressSchema>>().toEqualTypeOf<
      Returns<typeof documents.addressDocument>
    >();
    expectTypeOf<Of<typeof schemas.availabilityRequestSchema>>().toEqualTypeOf<
      Returns<typeof documents.availabilityRequestDocument>
    >();
    expectTypeOf<Of<typeof schemas.productSchema>>().toEqualTypeOf<
      Returns<typeof documents.productDocument>
    >();
    expectTypeOf<Of<typeof schemas.sourceOutcomeSchema>>().toEqualTypeOf<
      Returns<typeof documents.sourceOutcomeDocument>
    >();
    expectTypeOf<Of<typeof schemas.paginationSchema>>().toEqualTypeOf<
      Returns<typeof documents.paginationDocument>
    >();
    expectTypeOf<Of<typeof schemas.optionsSchema>>().toEqualTypeOf<
      Returns<typeof documents.optionsDocument>
    >();
    expectTypeOf<Of<typeof schemas.authenticationSchema>>().toEqualTypeOf<
      Returns<typeof documents.authenticationDocument>
    >();
    expectTypeOf<Of<typeof schemas.customerSchema>>().toEqualTypeOf<
      Returns<typeof documents.customerDocument>
    >();
    expectTypeOf<Of<typeof schemas.projectSchema>>().toEqualTypeOf<
      Returns<typeof documents.projectDocument>
    >();
    expectTypeOf<Of<typeof schemas.instanceProductSchema>>().toEqualTypeOf<
      Returns<typeof documents.instanceProductDocument>
    >();
    expectTypeOf<Of<typeof schemas.quoteLineSchema>>().toEqualTypeOf<
      Returns<typeof documents.quoteLineDocument>
    >();
    expectTypeOf<Of<typeof schemas.quoteSchema>>().toEqualTypeOf<Returns<typeof documents.quoteDocument>>();
    expectTypeOf<Of<typeof schemas.problemSchema>>().toEqualTypeOf<Problem>();
  });

  it('when a response strays from the document, then validateRestResponse names the mismatch', () => {
    const page = { page_size: 25, current_page: 1, total_items: 0, total_pages: 0 };
    const json = 'application/json; charset=utf-8';

    expect(() =>
      validateRestResponse('GET', '/customers?page=1', 200, json, { data: [], pagination: page }),
    ).not.toThrow();
    expect(() => validateRestResponse('GET', '/customers', 200, json, { data: [] })).toThrow(
      /GET \/customers.*pagination/s,
    );
    expect(() =>
      validateRestResponse('GET', '/customers', 200, PROBLEM, { data: [], pagination: page }),
    ).toThrow(/not one of its documented media types/);
    expect(() => validateRestResponse('GET', '/customers', 418, json, {})).toThrow(/does not document/);
    expect(() => validateRestResponse('GET', '/nowhere', 200, json, {})).toThrow(/no documented path/);
    expect(() =>
      validateRestResponse('GET', '/quotes/quo_1', 404, PROBLEM, {
        type: 'urn:connectivity-gateway:problem:not-found',
        title: 'Not found',
        status: 400,
        detail: 'x',
      }),
    ).toThrow(/status/);
  });
});

/** A bare server that serves the docs and answers everything else 404, as app.ts falls through. */
function docsServer(): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (serveApiDocs(req, res, url.pathname)) return;
    res.writeHead(404, { 'content-type': 'text/plain' });
    res.end('fallback');
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server }),
    ),
  );
}

/** A GET with a raw request target (fetch would normalise `..`). */
function rawGet(base: string, target: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${base}${target}`, { method: 'GET', path: target }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        body += chunk;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('serveApiDocs', () => {
  let base: string;
  let server: Server;

  beforeAll(async () => {
    ({ url: base, server } = await docsServer());
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('when /openapi.json is asked for, then it answers the document as JSON with an ETag', async () => {
    const response = await fetch(`${base}/openapi.json`);
    const etag = response.headers.get('etag') ?? '';

    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(await response.json()).toEqual(openApiDocument());
    expect((await fetch(`${base}/openapi.json`, { headers: { 'if-none-match': etag } })).status).toBe(304);
    const head = await fetch(`${base}/openapi.json`, { method: 'HEAD' });
    expect([head.status, await head.text()]).toEqual([200, '']);
  });

  it('when /docs is asked for, then the page loads only same-origin assets, without inline script, under a strict CSP', async () => {
    const page = await fetch(`${base}/docs`);
    const html = await page.text();
    const assets = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((match) => match[1] ?? '');

    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('content-security-policy')).toMatch(/^default-src 'self';.*script-src 'self';/);
    expect(page.headers.get('x-content-type-options')).toBe('nosniff');
    expect(html).not.toMatch(/<script>|<script [^>]*>[^<\s]|<style|style=/);
    expect(assets.sort()).toEqual([
      '/docs/favicon-16x16.png',
      '/docs/favicon-32x32.png',
      '/docs/index.css',
      '/docs/init.js',
      '/docs/swagger-ui-bundle.js',
      '/docs/swagger-ui.css',
    ]);
    for (const asset of assets) {
      const response = await fetch(`${base}${asset}`);
      expect(response.status, asset).toBe(200);
      const file = join(SWAGGER_UI_DIR, asset.slice('/docs/'.length));
      if (existsSync(file) && !asset.endsWith('init.js')) {
        expect(Buffer.from(await response.arrayBuffer()).equals(readFileSync(file)), asset).toBe(true);
      }
    }
    expect((await fetch(`${base}/docs/init.js`)).headers.get('content-type')).toBe(
      'application/javascript; charset=utf-8',
    );
    expect((await fetch(`${base}/docs/swagger-ui.css`)).headers.get('content-type')).toBe(
      'text/css; charset=utf-8',
    );
  });

  it('when a name outside the allow-list or another method is asked for, then 404 or 405 problem+json, and other paths fall through', async () => {
    for (const target of [
      '/docs/swagger-ui.js',
      '/docs/package.json',
      '/docs/..%2f..%2fpackage.json',
      '/docs/x/../../etc/passwd',
    ]) {
      const response = await rawGet(base, target);
      expect(response.status, target).toBe(404);
      expect(response.body, target).not.toMatch(/"name":\s*"connectivity-gateway"|root:/);
    }
    const post = await fetch(`${base}/openapi.json`, { method: 'POST' });
    expect([post.status, post.headers.get('allow'), post.headers.get('content-type')]).toEqual([
      405,
      'GET, HEAD',
      PROBLEM,
    ]);
    expect((await post.json()).status).toBe(405);
    expect(await (await fetch(`${base}/customers`)).text()).toBe('fallback');
  });

  it.skipIf(!existsSync(CHROMIUM))(
    'when /docs is opened in a browser, then Swagger UI renders every operation with no CSP violation or foreign request',
    async () => {
      const browser = await chromium.launch({
        executablePath: CHROMIUM,
        args: ['--no-sandbox', '--disable-gpu'],
      });
      try {
        const page = await browser.newPage();
        const problems: string[] = [];
        const requested: string[] = [];
        page.on('pageerror', (error) => problems.push(String(error)));
        page.on('console', (message) => {
          if (message.type() === 'error' || /content security policy/i.test(message.text()))
            problems.push(message.text());
        });
        page.on('request', (request) => requested.push(request.url()));

        await page.goto(`${base}/docs`);
        await page
          .locator('.opblock')
          .nth(routes.length - 1)
          .waitFor({ timeout: 20_000 });

        expect(await page.locator('.opblock').count()).toBe(routes.length);
        expect(await page.locator('.info .title').textContent()).toContain('Connectivity Gateway REST API');
        expect(problems).toEqual([]);
        expect(requested.filter((url) => !url.startsWith(`${base}/`))).toEqual([]);
      } finally {
        await browser.close();
      }
    },
    60_000,
  );
});

describe('REST responses of the contract flow', () => {
  let server: TestServer;
  let tenant: TestTenant;
  let api: ApiClient;
  const seen: string[] = [];

  /** One request through the ApiClient, its response validated against the document. */
  async function call(
    client: ApiClient,
    method: string,
    path: string,
    init: { body?: unknown; raw?: string; headers?: Record<string, string> } = {},
  ): Promise<JsonResponse> {
    const response = await client.request(method, path, init);
    validateRestResponse(method, path, response.status, response.headers.get('content-type'), response.body);
    seen.push(`${method} ${path.split('?')[0]} ${response.status}`);
    return response;
  }

  beforeAll(async () => {
    server = await startTestServer();
    tenant = await server.tenant({ code: 'OAS' });
    api = tenant.api;
  });
  afterAll(() => server.close());

  it('when signing in with credentials and then a refresh token, then both answers match the document', async () => {
    const signIn = await call(server.anonymous, 'POST', '/authentication', {
      body: { client_id: tenant.clientId, client_secret: tenant.clientSecret },
    });
    const refreshed = await call(server.anonymous, 'POST', '/authentication', {
      body: { auth_refresh_token: signIn.body.data.auth_refresh_token },
    });

    expect([signIn.status, refreshed.status]).toEqual([200, 200]);
  });

  it('when running the availability flow, then options, create, list and the completed request match the document', async () => {
    expect((await call(api, 'GET', '/availability-requests/options?country_code=NL')).status).toBe(200);
    const created = await call(api, 'POST', '/availability-requests', { body: contractExampleBatch });
    expect(created.status).toBe(201);
    expect((await call(api, 'GET', '/availability-requests?page=1&page_size=10')).body.data).toHaveLength(2);

    const id = created.body.data[0].id;
    const done = await waitFor(
      () => call(api, 'GET', `/availability-requests/${id}`),
      (response) => response.body.data.status === 'completed',
    );
    expect(done.body.data.products.length).toBeGreaterThan(0);
  });

  it('when running the customer, project, product and quote flow, then every answer matches the document', async () => {
    const customer = await call(api, 'POST', '/customers', {
      body: { name: 'ACME Telecom', website: 'https://acme.example', financial_details: { apply_vat: true } },
    });
    expect(customer.status).toBe(201);
    await call(api, 'POST', '/customers', { body: { name: 'Bare B.V.' } });
    expect((await call(api, 'GET', '/customers?filter[name]=acme')).body.data).toHaveLength(1);
    const customerId = customer.body.data.id;

    expect(
      (await call(api, 'POST', '/projects', { body: { customer_id: customerId, name: 'HQ' } })).status,
    ).toBe(201);
    expect((await call(api, 'GET', `/projects?customer_id=${customerId}`)).body.data).toHaveLength(1);

    const items = (await call(api, 'GET', '/instance-products')).body.data;
    await call(api, 'GET', '/mandatory-products');
    const requests = (await call(api, 'GET', '/availability-requests')).body.data;
    const detail = await waitFor(
      () => call(api, 'GET', `/availability-requests/${requests[0].id}`),
      (response) => response.body.data.status === 'completed',
    );

    const quote = await call(api, 'POST', '/quotes', {
      body: {
        name: 'Head office',
        customer_id: customerId,
        reference_number: 'PO-1',
        availability_request_product_ids: detail.body.data.products.slice(0, 1).map((p: Json) => p.id),
      },
    });
    expect(quote.status).toBe(201);
    const quoteId = quote.body.data.id;
    expect((await call(api, 'GET', `/quotes/${quoteId}`)).status).toBe(200);
    const added = await call(api, 'POST', `/quotes/${quoteId}/products`, {
      body: { instance_product_ids: items.slice(0, 2).map((item: Json) => item.id) },
    });
    expect(added.status).toBe(200);
  });

  it('when a POST is repeated with its Idempotency-Key, then the replay matches the document too', async () => {
    const init = { body: { name: 'Once Only' }, headers: { 'idempotency-key': 'oas-once-only' } };
    const first = await call(api, 'POST', '/customers', init);
    const replay = await call(api, 'POST', '/customers', init);
    const mismatch = await call(api, 'POST', '/customers', { ...init, body: { name: 'Other' } });

    expect([first.status, replay.status, mismatch.status]).toEqual([201, 201, 422]);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
  });

  it('when requests go wrong, then every problem+json answer matches the document', async () => {
    // No REST route is open to a signed-in user without a role; only the database can make one.
    const limited = await server.tenant({ code: 'OAT' });
    await updateStoredRows(
      server.app.services.db,
      'users',
      { roles: [] },
      { instanceId: limited.instanceId },
    );
    const cases: [
      ApiClient,
      string,
      string,
      { body?: unknown; raw?: string; headers?: Record<string, string> },
      number,
    ][] = [
      [
        api,
        'POST',
        '/availability-requests',
        { body: [{ address: { country_code: 'NL', postal_code: '1016' } }] },
        422,
      ],
      [api, 'POST', '/customers', { body: { name: 'X', preferredCurrency: 'EUR' } }, 422],
      [api, 'GET', '/availability-requests?page_size=101', {}, 422],
      [api, 'GET', '/availability-requests/options?country_code=XX', {}, 422],
      [api, 'GET', '/quotes/quo_01m81c3718e04ss8zkx0k227dm', {}, 404],
      [api, 'GET', '/availability-requests/avr_01m81c3718e04ss8zkx0k227dm', {}, 404],
      [api, 'POST', '/quotes/quo_01m81c3718e04ss8zkx0k227dm/products', { body: {} }, 404],
      [api, 'GET', '/projects?customer_id=cus_01m81c3718e04ss8zkx0k227dm', {}, 404],
      [api, 'GET', '/no-such-route', {}, 404],
      [api, 'DELETE', '/customers', {}, 405],
      [server.anonymous, 'GET', '/customers', {}, 401],
      [
        server.anonymous,
        'POST',
        '/authentication',
        { body: { client_id: 'nobody', client_secret: 'wrong' } },
        401,
      ],
      [limited.api, 'GET', '/customers', {}, 403],
      [api, 'POST', '/customers', { raw: '{"name":', headers: { 'content-type': 'application/json' } }, 400],
      [api, 'POST', '/customers', { raw: 'name=x', headers: { 'content-type': 'text/plain' } }, 415],
      [
        api,
        'POST',
        '/customers',
        {
          raw: JSON.stringify({ name: 'x'.repeat(1_100_000) }),
          headers: { 'content-type': 'application/json' },
        },
        413,
      ],
    ];

    for (const [client, method, path, init, status] of cases) {
      const response = await call(client, method, path, init);
      expect(response.status, `${method} ${path}`).toBe(status);
      expect(response.headers.get('content-type'), `${method} ${path}`).toBe(PROBLEM);
    }
  });

  it('when the flow is done, then every route was called and validated', () => {
    const called = new Set(seen.map((entry) => entry.split(' ').slice(0, 2).join(' ')));
    for (const route of routes) {
      const pattern = new RegExp(`^${route.method} ${route.path.replace(/:\w+/g, '[^/]+')}$`);
      expect(
        [...called].some((entry) => pattern.test(entry)),
        `${route.method} ${route.path}`,
      ).toBe(true);
    }
  });
});
