import { z } from 'zod';
import { orderStatuses } from '../../db/values.js';
import { authenticationInput } from '../../resolvers/authentication.js';
import { availabilityRequestBatchSchema } from '../../resolvers/availability-input.js';
import { countryCodeSchema } from '../../resolvers/availability-options.js';
import { customerInputSchema } from '../../resolvers/customer-input.js';
import { nameFilter } from '../../resolvers/customers.js';
import { cancelOrderInput } from '../../resolvers/order-cancellation.js';
import { manualLineInput, placeOrderInput } from '../../resolvers/orders.js';
import { pageInput } from '../../resolvers/pagination.js';
import { projectInput } from '../../resolvers/projects.js';
import { createQuoteInput, productIdArrays } from '../../resolvers/quotes.js';
import { inputJsonSchema, type JsonSchema, snakeCaseSchema, withoutNull } from './json-schema.js';

/** A request body schema: its component name, a description, and the resolver's zod schema behind it. */
interface RequestBody {
  description: string;
  schema: z.ZodType;
}

/**
 * The request bodies, each from the zod schema its resolver validates with (keys renamed to the contract's
 * snake_case), keyed by component name. Checks beyond a JSON Schema (a known country, a valid IBAN, a
 * customer of the caller's instance) answer 422 with the offending `errors[].path`.
 */
const REQUEST_BODIES: Record<string, RequestBody> = {
  AuthenticationRequest: {
    description: 'Client credentials, or a refresh token (which works once).',
    schema: authenticationInput,
  },
  AvailabilityRequestBatch: {
    description:
      'One element per availability request. An address is given as fields or as coordinates; which fields a ' +
      'country requires, and their patterns, come from `GET /availability-requests/options`. Filter values ' +
      'must be among those the options publish. One invalid element rejects the whole batch.',
    schema: availabilityRequestBatchSchema,
  },
  CustomerInput: {
    description:
      'A customer to create. Only `name` is required; an empty string or null counts as not given. Fields the ' +
      'service assigns (`id`, `auto_number`, `price_plan`) are rejected.',
    schema: customerInputSchema,
  },
  ProjectInput: { description: 'A project of one of your customers.', schema: projectInput },
  QuoteInput: {
    description:
      'A quote for one of your customers. The product ids may also be added later; the instance’s mandatory ' +
      'products are always added.',
    schema: createQuoteInput,
  },
  OrderInput: {
    description:
      'The quote to order, when the sellers are asked to complete (default: 30 days from now), and the ' +
      'contact sent to them instead of each source’s buyer contact.',
    schema: placeOrderInput,
  },
  ManualOrderLineInput: {
    description: 'The status a manual line moves to, with an optional note.',
    schema: manualLineInput,
  },
  CancelOrderInput: {
    description: 'Why the order is cancelled: sent to the sellers as the cancellation’s reason.',
    schema: cancelOrderInput,
  },
  QuoteProductsInput: {
    description: 'Products to add to a quote; those already on it are skipped.',
    schema: z.strictObject(productIdArrays),
  },
};

/** The request body components: JSON Schemas in snake_case, with a description. */
export function requestBodySchemas(): Record<string, JsonSchema> {
  return Object.fromEntries(
    Object.entries(REQUEST_BODIES).map(([name, { description, schema }]) => [
      name,
      { description, ...snakeCaseSchema(inputJsonSchema(schema)) },
    ]),
  );
}

/** The property `key` of an object schema's JSON Schema. */
function property(schema: JsonSchema, key: string): JsonSchema {
  const properties = schema.properties as Record<string, JsonSchema> | undefined;
  const found = properties?.[key];
  if (!found) throw new Error(`no property ${key} in the schema`);
  return found;
}

/** Query parameter schemas, from the same zod schemas the resolvers parse the query with. */
export function queryParameterSchemas(): Record<
  'page' | 'pageSize' | 'name' | 'countryCode' | 'orderStatus',
  JsonSchema
> {
  const page = inputJsonSchema(pageInput);
  return {
    orderStatus: inputJsonSchema(z.enum(orderStatuses)),
    page: property(page, 'page'),
    pageSize: property(page, 'pageSize'),
    name: withoutNull(inputJsonSchema(nameFilter)),
    countryCode: inputJsonSchema(countryCodeSchema),
  };
}
