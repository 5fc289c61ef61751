import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { type OpenApiDocument, openApiDocument } from '../../src/rest/openapi/document.js';

// ajv-formats is CommonJS: its default import is `module.exports`, whose `default` is the plugin itself.
const addFormats = addFormatsModule.default;

/** Where the document's named schemas live for ajv: one resource holding them all as `$defs`. */
const COMPONENTS_ID = 'urn:connectivity-gateway:openapi:components';

type Json = { [key: string]: unknown };

/** Rewrites `#/components/schemas/X` references to the resource ajv holds the components in. */
function rebase(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(rebase);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, inner]) => [
      key,
      key === '$ref' && typeof inner === 'string' && inner.startsWith('#/components/schemas/')
        ? `${COMPONENTS_ID}#/$defs/${inner.slice('#/components/schemas/'.length)}`
        : rebase(inner),
    ]),
  );
}

/** Resolves a `#/components/<section>/<name>` reference of the document, or answers the value itself. */
function resolve(document: OpenApiDocument, value: unknown): Json {
  const ref = (value as Json | undefined)?.$ref;
  if (typeof ref !== 'string') return value as Json;
  const [, , section, name] = ref.split('/');
  const target = (document.components[section ?? ''] as Record<string, Json> | undefined)?.[name ?? ''];
  if (!target) throw new Error(`the OpenAPI document has no ${ref}`);
  return target;
}

/** The document, compiled once into an ajv holding its component schemas. */
const compiled = (() => {
  const document = openApiDocument();
  const ajv = new Ajv2020({ strict: true, allowUnionTypes: true, allErrors: true });
  addFormats(ajv);
  ajv.addSchema({ $id: COMPONENTS_ID, $defs: rebase(document.components.schemas) as Json });
  const templates = Object.keys(document.paths).map((template) => ({
    template,
    segments: template.split('/').slice(1),
  }));
  return { document, ajv, templates, validators: new Map<string, ValidateFunction>() };
})();

/**
 * The path template a concrete path belongs to. Like the router, a literal segment beats a parameter:
 * `/availability-requests/options` is not `/availability-requests/{id}`.
 */
function matchTemplate(path: string): string | null {
  const parts = path.split('/').slice(1);
  const candidates = compiled.templates.filter(
    ({ segments }) =>
      segments.length === parts.length &&
      segments.every((segment, index) =>
        segment.startsWith('{') ? (parts[index] ?? '') !== '' : segment === parts[index],
      ),
  );
  const literals = (segments: string[]) => segments.filter((segment) => !segment.startsWith('{')).length;
  candidates.sort((a, b) => literals(b.segments) - literals(a.segments));
  return candidates[0]?.template ?? null;
}

/** The documented response for a request and status: the operation's, or the router's 404/405 for any path. */
function documentedResponse(method: string, path: string, status: number): { where: string; response: Json } {
  const { document } = compiled;
  const template = matchTemplate(path);
  if (!template) {
    if (status !== 404)
      throw new Error(`${method} ${path}: no documented path matches, yet it answered ${status}`);
    return {
      where: `${method} ${path} (no route)`,
      response: resolve(document, { $ref: '#/components/responses/NotFound' }),
    };
  }
  const operation = document.paths[template]?.[method.toLowerCase()] as Json | undefined;
  const where = `${method} ${template}`;
  if (!operation) {
    if (status !== 405) throw new Error(`${where} is not documented, yet it answered ${status}`);
    return { where, response: resolve(document, { $ref: '#/components/responses/MethodNotAllowed' }) };
  }
  const responses = operation.responses as Record<string, unknown>;
  const response = responses[String(status)] ?? responses.default;
  if (!response) {
    throw new Error(
      `${where} answered ${status}, which it does not document (${Object.keys(responses).join(', ')})`,
    );
  }
  return { where, response: resolve(document, response) };
}

/** Paths served beside the REST layer (GraphQL, the event stream, probes, pages): not in the document. */
const NOT_REST =
  /^\/(?:graphql|\.well-known\/mercure|dashboard|docs|openapi\.json|healthz|readyz|metrics)(?:[/?]|$)/;

/** Whether `path` belongs to the REST layer the OpenAPI document describes (see {@link validateRestResponse}). */
export function isRestPath(path: string): boolean {
  return !NOT_REST.test(path);
}

/**
 * Validates one REST response against the OpenAPI document (`openApiDocument()`), as every response of the
 * test suite is: the path must match a documented path template (a literal segment beats a parameter), the
 * method and status must be documented for it (an unknown path may only answer the 404 problem, a known
 * path with another method only the 405 one), the media type (parameters such as `charset` ignored) must be
 * one the response documents, and the body must satisfy its schema (JSON Schema 2020-12, with formats).
 *
 * @param path the request path; a query string is ignored.
 * @param contentType the `Content-Type` header as sent, or null.
 * @param body the parsed JSON body.
 * @throws {Error} naming the operation, status and every schema violation, on any mismatch.
 */
export function validateRestResponse(
  method: string,
  path: string,
  status: number,
  contentType: string | null,
  body: unknown,
): void {
  const pathname = path.split('?')[0] ?? path;
  const { where, response } = documentedResponse(method.toUpperCase(), pathname, status);
  if (response.content === undefined) {
    // A response documented without content (a 204) must come without a body and its media type.
    if (contentType !== null || (body !== null && body !== undefined)) {
      throw new Error(`${where} answered ${status} with "${contentType}" content, but documents none`);
    }
    return;
  }
  const content = response.content as Record<string, { schema: Json }>;
  const mediaType = (contentType ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  const entry = content[mediaType];
  if (!entry) {
    throw new Error(
      `${where} answered ${status} as "${contentType}", not one of its documented media types (${Object.keys(content).join(', ') || 'none'})`,
    );
  }
  if (method.toUpperCase() === 'HEAD') return; // no body to check
  const key = `${where} ${status} ${mediaType}`;
  let validate = compiled.validators.get(key);
  if (!validate) {
    validate = compiled.ajv.compile(rebase(entry.schema) as Json);
    compiled.validators.set(key, validate);
  }
  if (!validate(body)) {
    const problems = (validate.errors ?? [])
      .map(
        (error) =>
          `  ${error.instancePath || '(root)'} ${error.message ?? ''} ${JSON.stringify(error.params)}`,
      )
      .join('\n');
    throw new Error(
      `${method} ${path} answered ${status} with a body that does not match the OpenAPI document (${where}):\n${problems}\nbody: ${JSON.stringify(body).slice(0, 2000)}`,
    );
  }
}

/** A validator for the named component schema `#/components/schemas/<name>` (e.g. a request body). */
export function componentValidator(name: string): ValidateFunction {
  if (!(name in compiled.document.components.schemas)) throw new Error(`no component schema ${name}`);
  return compiled.ajv.compile({ $ref: `${COMPONENTS_ID}#/$defs/${name}` });
}
