import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { compileErrors, validate } from '@readme/openapi-parser';
import { describe, expect, expectTypeOf, it } from 'vitest';
import type { z } from 'zod';
import type * as documents from '../../src/rest/documents.js';
import { openApiDocument, openApiPath } from '../../src/rest/openapi/document.js';
import type * as schemas from '../../src/rest/openapi/responses.js';
import type { Problem } from '../../src/rest/problem.js';
import { routes } from '../../src/rest/routes.js';
import { contractExampleBatch, type Json } from '../helpers/app.js';
import { componentValidator, validateRestResponse } from '../helpers/openapi.js';
import { PROBLEM } from './openapi-fixtures.js';

const packageJson = JSON.parse(
  readFileSync(fileURLToPath(new URL('../../package.json', import.meta.url)), 'utf8'),
) as { version: string };

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
