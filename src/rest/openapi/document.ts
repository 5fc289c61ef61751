import { readFileSync } from 'node:fs';
import { type Route, routes } from '../routes.js';
import { componentSchemas, type JsonSchema } from './json-schema.js';
import { type OperationSpec, operations, type QueryParameter } from './operations.js';
import {
  headerComponents,
  problemResponseComponents,
  problemResponseName,
  problemStatuses,
  rateLimitResponseHeaders,
} from './problems.js';
import { responseSchemas } from './registry.js';
import { queryParameterSchemas, requestBodySchemas } from './requests.js';

/** An OpenAPI 3.1 document as plain JSON. */
export type OpenApiDocument = {
  openapi: '3.1.0';
  info: { title: string; version: string; description: string };
  paths: Record<string, Record<string, Record<string, unknown>>>;
  components: { schemas: Record<string, JsonSchema>; [section: string]: unknown };
  [field: string]: unknown;
};

const { version } = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as {
  version: string;
};

const DESCRIPTION = [
  'The REST layer of the Connectivity Gateway: availability of business network connections per address, ',
  'gathered live from many suppliers, plus customers, projects and quotes. Bodies are JSON with snake_case ',
  'keys. Every error is `application/problem+json` (RFC 9457); a path that is not a route answers 404, and a ',
  'route called with another method 405 with `Allow`. Every authenticated POST takes an optional ',
  '`Idempotency-Key` (kept 24 hours per instance): the same key and body replay the first response.',
].join('');

/** `/quotes/:id/products` → `/quotes/{id}/products`. */
export function openApiPath(path: string): string {
  return path.replace(/:(\w+)/g, '{$1}');
}

/** The operation spec of a route; a route without one is a bug, caught when the document is built. */
function specOf(route: Route): OperationSpec {
  const spec = operations[`${route.method} ${route.path}`];
  if (!spec) throw new Error(`the OpenAPI document has no operation for ${route.method} ${route.path}`);
  return spec;
}

/** The component id of a registered response body schema. */
function bodyId(spec: OperationSpec, body: NonNullable<OperationSpec['response']['body']>): string {
  const id = responseSchemas.get(body)?.id;
  if (!id) throw new Error(`the response body of ${spec.operationId} is not a named schema`);
  return id;
}

const ref = (section: string, name: string) => ({ $ref: `#/components/${section}/${name}` });

function operation(route: Route): Record<string, unknown> {
  const spec = specOf(route);
  const pathParameters = [...route.path.matchAll(/:(\w+)/g)].map(([, name]) =>
    name === 'id'
      ? ref('parameters', 'Id')
      : { name, in: 'path', required: true, description: 'The id.', schema: { type: 'string' } },
  );
  const parameters = [
    ...pathParameters,
    ...(spec.query ?? []).map((name) => ref('parameters', name)),
    ...(route.method === 'POST' && route.authenticated ? [ref('parameters', 'IdempotencyKey')] : []),
  ];
  const successHeaders: Record<string, unknown> = rateLimitResponseHeaders();
  if (route.method === 'POST' && route.authenticated) {
    successHeaders['Idempotent-Replayed'] = ref('headers', 'IdempotentReplayed');
  }
  if (route.eventStream) successHeaders.Link = ref('headers', 'MercureLink');
  const { body } = spec.response;
  const responses: Record<string, unknown> = {
    [spec.response.status]: {
      description: spec.response.description,
      headers: successHeaders,
      ...(body ? { content: { 'application/json': { schema: ref('schemas', bodyId(spec, body)) } } } : {}),
    },
  };
  for (const status of problemStatuses(route, spec)) {
    responses[status] = ref('responses', problemResponseName(status));
  }
  return {
    operationId: spec.operationId,
    tags: [spec.tag],
    summary: spec.summary,
    description: spec.description,
    ...(route.authenticated ? {} : { security: [] }),
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(spec.requestBody
      ? {
          requestBody: {
            required: true,
            content: { 'application/json': { schema: ref('schemas', spec.requestBody) } },
          },
        }
      : {}),
    responses,
  };
}

/** Parameters: the `:id` of a path, the query parameters (schemas from the resolvers), `Idempotency-Key`. */
function parameterComponents(): Record<string, unknown> {
  const schemas = queryParameterSchemas();
  const query = (name: string, description: string, schema: JsonSchema, required = false) => ({
    name,
    in: 'query',
    description,
    required,
    schema,
  });
  const parameters: Record<QueryParameter, unknown> = {
    Page: query('page', 'The page to answer, from 1.', schemas.page),
    PageSize: query('page_size', 'Items per page.', schemas.pageSize),
    FilterName: query(
      'filter[name]',
      'Only customers whose name contains this text (case-insensitive).',
      schemas.name,
    ),
    CountryCode: query('country_code', 'ISO 3166-1 alpha-2 country code.', schemas.countryCode, true),
    CustomerId: query('customer_id', 'Only the projects of this customer.', {
      type: 'string',
      maxLength: 100,
    }),
    FilterCustomerId: query('filter[customer_id]', 'Only the orders of this customer.', {
      type: 'string',
      maxLength: 100,
    }),
    FilterStatus: query('filter[status]', 'Only the orders in this status.', schemas.orderStatus),
  };
  return {
    Id: { name: 'id', in: 'path', required: true, description: 'The id.', schema: { type: 'string' } },
    ...parameters,
    IdempotencyKey: {
      name: 'Idempotency-Key',
      in: 'header',
      required: false,
      description:
        'Makes the POST safe to retry: the same key with the same body replays the first response and ' +
        'writes nothing new; with another body → 422; while the first still runs → 409. Kept 24 hours.',
      schema: { type: 'string', pattern: '^[\\x21-\\x7e]{1,255}$' },
    },
  };
}

function build(): OpenApiDocument {
  const paths: OpenApiDocument['paths'] = {};
  for (const route of routes) {
    const path = openApiPath(route.path);
    paths[path] = { ...paths[path], [route.method.toLowerCase()]: operation(route) };
  }
  const tags = [...new Set(routes.map((route) => specOf(route).tag))].map((name) => ({ name }));
  return {
    openapi: '3.1.0',
    info: { title: 'Connectivity Gateway REST API', version, description: DESCRIPTION },
    servers: [{ url: '/' }],
    security: [{ authToken: [] }, { bearerAuth: [] }],
    tags,
    paths,
    components: {
      schemas: { ...componentSchemas(responseSchemas), ...requestBodySchemas() },
      parameters: parameterComponents(),
      headers: headerComponents(),
      responses: problemResponseComponents(),
      securitySchemes: {
        authToken: {
          type: 'apiKey',
          in: 'header',
          name: 'X-Auth-Token',
          description: 'The `auth_token` from `POST /authentication`.',
        },
        bearerAuth: {
          type: 'http',
          scheme: 'bearer',
          description: 'The same `auth_token`, as `Authorization: Bearer <token>` (RFC 6750).',
        },
      },
    },
  };
}

let built: OpenApiDocument | null = null;

/**
 * The OpenAPI 3.1 document of the REST layer: one operation per route of `routes` (a route without an
 * entry in `operations` throws), request bodies from the resolvers' zod schemas, response bodies from the
 * zod schemas of the documents. Built once; callers must not mutate it (clone it first).
 */
export function openApiDocument(): OpenApiDocument {
  built ??= build();
  return built;
}
