import { fileURLToPath, pathToFileURL } from 'node:url';
import { parse } from '@readme/openapi-parser';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';

// ajv-formats is CommonJS: its default import is `module.exports`, whose `default` is the plugin itself.
const addFormats = addFormatsModule.default;

/**
 * Which MEF documents: Product Offering Qualification (MEF 87), Quote (MEF 115), Product Order Management
 * (MEF 123) — each a management and a notification document — or Product Inventory (MEF 116), which sends no
 * notifications.
 */
export type SonataApi = 'poq' | 'quote' | 'order' | 'inventory';

/** The base path of each API's management document (its `servers` URL without scheme and host). */
export const SONATA_API_PATHS: Record<SonataApi, string> = {
  poq: '/mefApi/sonata/productOfferingQualification/v7',
  quote: '/mefApi/sonata/quoteManagement/v8',
  order: '/mefApi/sonata/productOrderingManagement/v10',
  inventory: '/mefApi/sonata/productInventory/v7',
};

/** The base path of each notification document (the path a listener's callback is extended by). */
export const SONATA_NOTIFICATION_PATHS: Partial<Record<SonataApi, string>> = {
  poq: '/mefApi/sonata/productOfferingQualificationNotification/v7',
  quote: '/mefApi/sonata/quoteNotification/v8',
  order: '/mefApi/sonata/productOrderingNotification/v10',
};

/**
 * Which API a full path belongs to — a seller's exchange (`…/mefApi/sonata/quoteManagement/v8/quote`) or a
 * listener's URL (`…/mefApi/sonata/quoteNotification/v8/listener/…`) — by the base path it contains; null
 * when it contains none.
 */
export function sonataApiOf(path: string): SonataApi | null {
  for (const paths of [SONATA_API_PATHS, SONATA_NOTIFICATION_PATHS]) {
    for (const [api, base] of Object.entries(paths) as [SonataApi, string][]) {
      if (path.includes(base)) return api;
    }
  }
  return null;
}

/** Validates exchanges with a Sonata seller against the vendored MEF documents (test/fixtures/mef-sonata). */
export interface SonataValidator {
  /**
   * Errors of one request (empty when valid): the operation must exist for `method` and the path (a literal
   * segment beats a `{parameter}`), required query parameters must be present and declared ones match their
   * schema (others are ignored: the simulator's knobs), the JSON body must match the request body schema, and
   * every `productConfiguration` in it must match the MEF 139 schema its `@type` names.
   * `path` is below the API base (`/productOfferingQualification/{id}` as a concrete path), or a full path
   * containing the document's base path (`…/mefApi/sonata/productOfferingQualification/v7/…`), with or
   * without a query string.
   */
  request(
    api: SonataApi,
    exchange: { method: string; path: string; body?: unknown; query?: Record<string, string> },
  ): string[];
  /**
   * Errors of one response: the status must be documented for the operation (`default` counts) and the body
   * must match its schema (a `204` must have none). Two statuses these document versions never list are
   * accepted with a checked body, because a seller's gateway answers them to any operation: `429` with the
   * common `Error` shape plus a string `code`, and `503` with the `Error500` shape. A path matching no
   * operation may only answer `404` with `Error404`.
   */
  response(
    api: SonataApi,
    exchange: { method: string; path: string; status: number; body?: unknown },
  ): string[];
  /**
   * Errors of one notification a seller POSTs to a buyer's listener: `path` is the URL path below the
   * notification API base (`/listener/poqStateChangeEvent`) or a full callback path containing that base;
   * the body must match the operation's `Event` schema and its `eventType` must name the listener path.
   * `inventory` has no notification document: any notification for it is an error.
   */
  notification(api: SonataApi, exchange: { path: string; body: unknown }): string[];
}

type Json = { [key: string]: unknown };

const FIXTURES = fileURLToPath(new URL('../fixtures/mef-sonata/', import.meta.url));

/** The documents of each API (POQ 7.0.1, Quote 8.0.1, Product Order 10.0.0, Product Inventory 7.0.2). */
const DOCUMENTS: Record<SonataApi, { management: string; notification?: string }> = {
  poq: {
    management:
      'productApi/serviceability/offeringQualification/productOfferingQualificationManagement.api.yaml',
    notification:
      'productApi/serviceability/offeringQualification/productOfferingQualificationNotification.api.yaml',
  },
  quote: {
    management: 'productApi/quote/quoteManagement.api.yaml',
    notification: 'productApi/quote/quoteNotification.api.yaml',
  },
  order: {
    management: 'productApi/order/productOrderManagement.api.yaml',
    notification: 'productApi/order/productOrderNotification.api.yaml',
  },
  inventory: { management: 'productApi/inventory/productInventoryManagement.api.yaml' },
};

/** MEF 139 product schemas by the `@type` (their `$id`) a `MEFProductConfiguration` carries. */
const PRODUCT_SCHEMAS: Record<string, string> = {
  'urn:mef:lso:spec:cantata-sonata:basic-internet-access:v1.0.0:all':
    'productSchema/ip/internetAccess/basicInternetAccess/basicInternetAccess.yaml',
};
/** Every file the product schemas reach through `$ref`. */
const PRODUCT_FILES = [
  ...Object.values(PRODUCT_SCHEMAS),
  'productSchema/ip/internetAccess/internetAccessCommon/internetAccessCommon.yaml',
  'productSchema/ip/common/ipCommon.yaml',
  'productSchema/ip/common/ipSls.yaml',
  'productSchema/ip/ipUni/ethernetUniAccessLinkTrunk.yaml',
  'productSchema/ip/ipUni/ipUniCommon.yaml',
];

const fileId = (relative: string) => pathToFileURL(`${FIXTURES}${relative}`).href;

interface LoadedDocument {
  id: string;
  basePath: string;
  paths: Record<string, Record<string, Json>>;
  components: Json;
  templates: string[][];
}

/**
 * Rewrites `#/components/schemas/X` to the ajv resource holding the document's schemas. OpenAPI 3.0's
 * `discriminator.mapping` (used by `RelatedPlaceRefOrValue`) is not JSON Schema, so a reference to such a base
 * schema, outside the `allOf` through which its subtypes inherit it, goes to a dispatching copy that also
 * applies the subtype `@type` names: a `FieldedAddress` place must then have its `streetName`.
 */
function rebase(value: unknown, id: string, dispatching: Set<string>, inAllOf = false): unknown {
  if (Array.isArray(value)) return value.map((inner) => rebase(inner, id, dispatching, inAllOf));
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, inner]) => {
      if (key === '$ref' && typeof inner === 'string' && inner.startsWith('#/components/schemas/')) {
        const name = inner.slice('#/components/schemas/'.length);
        return [key, `${id}#/definitions/${!inAllOf && dispatching.has(name) ? `${name}__dispatch` : name}`];
      }
      return [key, rebase(inner, id, dispatching, key === 'allOf')];
    }),
  );
}

function dispatchSchema(name: string, schema: Json, id: string): Json {
  const discriminator = schema.discriminator as { propertyName: string; mapping: Record<string, string> };
  return {
    allOf: [
      { $ref: `${id}#/definitions/${name}` },
      ...Object.entries(discriminator.mapping).map(([value, target]) => ({
        if: {
          properties: { [discriminator.propertyName]: { const: value } },
          required: [discriminator.propertyName],
        },
        // biome-ignore lint/suspicious/noThenProperty: JSON Schema's if/then keyword, not a thenable.
        then: { $ref: `${id}#/definitions/${target.slice('#/components/schemas/'.length)}` },
      })),
    ],
  };
}

async function loadDocument(ajv: Ajv, relative: string): Promise<LoadedDocument> {
  const document = (await parse(`${FIXTURES}${relative}`)) as unknown as Json;
  const id = `urn:connectivity-gateway:test:${relative}`;
  const components = document.components as Json;
  const schemas = components.schemas as Record<string, Json>;
  const dispatching = new Set(
    Object.entries(schemas)
      .filter(([, schema]) => (schema.discriminator as Json | undefined)?.mapping)
      .map(([name]) => name),
  );
  const definitions: Json = rebase(schemas, id, dispatching) as Json;
  for (const name of dispatching)
    definitions[`${name}__dispatch`] = dispatchSchema(name, schemas[name] ?? {}, id);
  ajv.addSchema({ $id: id, definitions });
  const server = ((document.servers as { url: string }[])[0]?.url ?? '').replace(/^https?:\/\/[^/]+/, '');
  const paths = document.paths as Record<string, Record<string, Json>>;
  return {
    id,
    basePath: server.replace(/\/$/, ''),
    paths,
    components,
    templates: Object.keys(paths).map((template) => template.split('/').slice(1)),
  };
}

/** The template of a concrete path below the base; a literal segment beats a parameter. */
function matchTemplate(document: LoadedDocument, path: string): string | null {
  const parts = path.split('/').slice(1);
  const candidates = document.templates.filter(
    (segments) =>
      segments.length === parts.length &&
      segments.every((segment, index) =>
        segment.startsWith('{') ? (parts[index] ?? '') !== '' : segment === parts[index],
      ),
  );
  const literals = (segments: string[]) => segments.filter((segment) => !segment.startsWith('{')).length;
  candidates.sort((a, b) => literals(b) - literals(a));
  return candidates[0] ? `/${candidates[0].join('/')}` : null;
}

/** Splits `path?query` and drops everything up to the document's base path, when present. */
function below(document: LoadedDocument, path: string): { path: string; query: Record<string, string> } {
  const [pathname = '', search = ''] = path.split('?');
  const at = pathname.indexOf(document.basePath);
  const rest = at >= 0 ? pathname.slice(at + document.basePath.length) : pathname;
  return { path: rest === '' ? '/' : rest, query: Object.fromEntries(new URLSearchParams(search)) };
}

function describe(where: string, validate: ValidateFunction): string[] {
  return (validate.errors ?? []).map(
    (error) =>
      `${where}: ${error.instancePath || '(root)'} ${error.message ?? ''} ${JSON.stringify(error.params)}`,
  );
}

/** Loads and compiles the vendored documents (about a second); call once per test file. */
export async function sonataValidator(): Promise<SonataValidator> {
  // OpenAPI 3.0 schemas are a JSON Schema draft-04/07 mix with keywords of their own (`discriminator`,
  // `example`): not strict. The MEF 139 schemas are draft-07.
  const ajv = new Ajv({ strict: false, allErrors: true });
  addFormats(ajv);
  // The MEF 139 files carry URN `$id`s yet reference each other by relative file path, which a URN base cannot
  // resolve (JSON Schema draft-07 §8.2): each file is registered under its own file URL instead.
  for (const relative of PRODUCT_FILES) {
    const schema = (await parse(`${FIXTURES}${relative}`)) as unknown as Json;
    const { $id: _urn, $schema: _dialect, ...rest } = schema;
    ajv.addSchema({ ...rest, $id: fileId(relative) });
  }
  const documents = {} as Record<SonataApi, { management: LoadedDocument; notification?: LoadedDocument }>;
  for (const [api, files] of Object.entries(DOCUMENTS) as [SonataApi, (typeof DOCUMENTS)[SonataApi]][]) {
    documents[api] = {
      management: await loadDocument(ajv, files.management),
      ...(files.notification ? { notification: await loadDocument(ajv, files.notification) } : {}),
    };
  }
  const compiled = new Map<string, ValidateFunction>();
  const compile = (key: string, schema: () => Json): ValidateFunction => {
    let validate = compiled.get(key);
    if (!validate) {
      validate = ajv.compile(schema());
      compiled.set(key, validate);
    }
    return validate;
  };
  const check = (where: string, document: LoadedDocument, schema: unknown, value: unknown): string[] => {
    const validate = compile(`${document.id} ${where}`, () => rebase(schema, document.id, new Set()) as Json);
    return validate(value) ? [] : describe(where, validate);
  };

  /** Each `productConfiguration` object in a body, checked against its MEF 139 schema. */
  const productConfigurations = (where: string, value: unknown, pointer = ''): string[] => {
    if (Array.isArray(value))
      return value.flatMap((inner, index) => productConfigurations(where, inner, `${pointer}/${index}`));
    if (value === null || typeof value !== 'object') return [];
    return Object.entries(value).flatMap(([key, inner]) => {
      const at = `${pointer}/${key}`;
      if (key !== 'productConfiguration' || inner === null || typeof inner !== 'object')
        return productConfigurations(where, inner, at);
      const type = (inner as Json)['@type'];
      const file = typeof type === 'string' ? PRODUCT_SCHEMAS[type] : undefined;
      if (!file) return [`${where}: ${at}/@type names no vendored MEF 139 product schema: ${String(type)}`];
      const validate = compile(`product ${file}`, () => ({ $ref: fileId(file) }));
      return validate(inner) ? [] : describe(`${where} ${at} (${type})`, validate);
    });
  };

  const operation = (document: LoadedDocument, method: string, path: string) => {
    const template = matchTemplate(document, path);
    const found = template ? document.paths[template]?.[method.toLowerCase()] : undefined;
    return { template, operation: found, where: `${method.toUpperCase()} ${template ?? path}` };
  };

  return {
    request(api, exchange) {
      const document = documents[api].management;
      const { path, query } = below(document, exchange.path);
      const { operation: found, where } = operation(document, exchange.method, path);
      if (!found) return [`${where}: no such operation in the ${api} document`];
      const given = { ...query, ...exchange.query };
      const problems: string[] = [];
      for (const parameter of (found.parameters ?? []) as Json[]) {
        if (parameter.in !== 'query') continue;
        const name = String(parameter.name);
        if (!(name in given)) {
          if (parameter.required) problems.push(`${where}: query parameter ${name} is required`);
          continue;
        }
        const schema = parameter.schema as Json;
        const raw = given[name];
        const value = schema.type === 'integer' || schema.type === 'number' ? Number(raw) : raw;
        problems.push(...check(`${where} ?${name}`, document, schema, value));
      }
      const content = ((found.requestBody as Json | undefined)?.content ?? {}) as Record<string, Json>;
      const media = Object.values(content)[0];
      if (media) {
        if (exchange.body === undefined) return [...problems, `${where}: a JSON body is required`];
        problems.push(...check(`${where} request`, document, media.schema, exchange.body));
        problems.push(...productConfigurations(`${where} request`, exchange.body));
      }
      return problems;
    },

    response(api, exchange) {
      const document = documents[api].management;
      const { path } = below(document, exchange.path);
      const { template, operation: found, where } = operation(document, exchange.method, path);
      const errorShape = (name: string) => ({ $ref: `#/components/schemas/${name}` });
      let schema: unknown;
      if (!template || !found) {
        if (exchange.status !== 404) return [`${where}: not documented, yet answered ${exchange.status}`];
        schema = errorShape('Error404');
      } else {
        const responses = found.responses as Record<string, Json>;
        const response = responses[String(exchange.status)] ?? responses.default;
        if (response) {
          const content = (response.content ?? {}) as Record<string, Json>;
          schema = Object.values(content)[0]?.schema;
          if (schema === undefined) {
            return exchange.body === undefined || exchange.body === ''
              ? []
              : [`${where} ${exchange.status}: documented without a body, yet has one`];
          }
        } else if (exchange.status === 429) {
          schema = {
            allOf: [errorShape('Error'), { required: ['code'], properties: { code: { type: 'string' } } }],
          };
        } else if (exchange.status === 503) {
          schema = errorShape('Error500');
        } else {
          return [`${where}: answered ${exchange.status}, not one of ${Object.keys(responses).join(', ')}`];
        }
      }
      const problems = check(`${where} ${exchange.status}`, document, schema, exchange.body);
      return [...problems, ...productConfigurations(`${where} ${exchange.status}`, exchange.body)];
    },

    notification(api, exchange) {
      const document = documents[api].notification;
      if (!document) return [`the ${api} API has no notification document`];
      const { path } = below(document, exchange.path);
      const { operation: found, where } = operation(document, 'POST', path);
      if (!found) return [`${where}: no such listener in the ${api} notification document`];
      const content = ((found.requestBody as Json).content ?? {}) as Record<string, Json>;
      const problems = check(`${where} event`, document, Object.values(content)[0]?.schema, exchange.body);
      const eventType = (exchange.body as Json | null)?.eventType;
      if (path !== `/listener/${String(eventType)}`) {
        problems.push(`${where}: eventType ${String(eventType)} sent to the listener ${path}`);
      }
      return problems;
    },
  };
}
