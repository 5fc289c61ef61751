import { z } from 'zod';
import { availabilityRequestStatuses, gatheringTaskStatuses, quoteLineKinds } from '../../db/rows.js';
import { instanceProductFulfilments, orderStatuses, sourceTypes } from '../../db/values.js';
import { about, named } from './registry.js';

// The documents the REST layer sends, one zod schema per shaping function of `src/rest/documents.ts`; a
// type test holds each to its function's return type, so the document cannot drift from the code.

/** An id as the documents show it. */
export const id = () => about('Opaque identifier.', z.string().min(1));
/** A time as the documents show it. */
export const timestamp = () =>
  about(
    'ISO 8601 timestamp with UTC offset, to the second (`2026-11-22T10:04:50+00:00`).',
    z.iso.datetime({ offset: true, precision: 0 }),
    '2026-11-22T10:04:50+00:00',
  );
const currency = () => about('ISO 4217 currency code.', z.string().regex(/^[A-Z]{3}$/), 'EUR');
const money = (what: string) =>
  about(`${what}, a decimal number in the currency's major unit (49.95 EUR).`, z.number());
const count = () => z.number().int().min(0);
const documentType = <T extends string>(value: T) =>
  about(`Constant \`${value}\`: what this document is.`, z.literal(value));
const reference = <T extends string>(type: T) =>
  z.strictObject({ id: id(), name: z.string(), _document_type: documentType(type) });

export const bandwidthSchema = named(
  'Bandwidth',
  'A download/upload pair in kbps.',
  z.strictObject({ download: count(), upload: count() }),
);

export const addressSchema = named(
  'Address',
  'The contract\'s "Address record": the address as the service normalised it.',
  z.strictObject({
    id: id(),
    street: z.string(),
    city: z.string(),
    continent_code: about('Two-letter continent code.', z.string()),
    country_code: about('ISO 3166-1 alpha-2.', z.string()),
    postal_code: about('Normalised: `1016 XA` is `1016XA`.', z.string()),
    house_number: z.string(),
    house_number_addition: about('Empty string when there is none.', z.string()),
    coordinates: about(
      'WGS84 decimal degrees; filled in for an address given as fields (the address itself, its postal code ' +
        "area's centre or its city's, as exactly as the geocoder knows it); null when it could not be located.",
      z.strictObject({ latitude: z.number(), longitude: z.number() }).nullable(),
    ),
    _document_type: documentType('address'),
  }),
);

export const availabilityRequestSchema = named(
  'AvailabilityRequest',
  'The contract\'s "Availability request (as returned by the list)", with its `status`.',
  z.strictObject({
    id: id(),
    address: addressSchema,
    created_at: timestamp(),
    updated_at: timestamp(),
    filters: about(
      'The applied filters; every array is empty when that filter was not given.',
      z.strictObject({
        contract_terms: about('Months.', z.array(z.number().int())),
        connection_types: z.array(z.string()),
        bandwidths: z.array(bandwidthSchema),
        technology_types: z.array(z.string()),
        networks: z.array(z.string()),
      }),
    ),
    networks_progress_percentage: about(
      'Share of the matching sources that finished, 0–100 with two fraction digits (`"50.00"`).',
      z.string().regex(/^(?:100|[1-9]?\d)\.\d{2}$/),
      '50.00',
    ),
    status: z.enum(availabilityRequestStatuses),
    _document_type: documentType('availability_request'),
  }),
);

/** The slim source a product or line names (issue 49): which source offered it, never its settings. */
export const productSourceSchema = named(
  'ProductSource',
  'The source that offered a product (a supplier catalogue or API): two products of one network from two ' +
    'sources differ here. Never the source’s settings.',
  z.strictObject({
    id: id(),
    name: z.string(),
    type: about(
      '`catalog` (an imported price list), `http` or `mef-sonata` (a supplier API).',
      z.enum(sourceTypes),
    ),
    _document_type: documentType('source'),
  }),
);

export const productSchema = named(
  'AvailabilityRequestProduct',
  'An offer gathered for an availability request, at the sale price of its price plan.',
  z.strictObject({
    id: id(),
    source: productSourceSchema.nullable(),
    network: z.string(),
    technology_type: z.string(),
    connection_type: z.string(),
    bandwidth: bandwidthSchema,
    contract_term: about('Months.', z.number().int()),
    mrc: money('Monthly recurring charge'),
    nrc: money('One-time charge'),
    currency: currency(),
    _document_type: documentType('availability_request_product'),
  }),
);

export const sourceOutcomeSchema = named(
  'AvailabilityRequestSource',
  "One matching source's gathering task for a request: its status and, when it failed, the error; a succeeded source that left part of its answer out says what in `error` too (e.g. `SONATA_PARTLY_DECLINED`: items a carrier could not serve).",
  z.strictObject({
    source_id: id(),
    name: z.string(),
    network: z.string(),
    status: z.enum(gatheringTaskStatuses),
    attempts: count(),
    product_count: count(),
    error: z.strictObject({ code: z.string(), message: z.string() }).nullable(),
    _document_type: documentType('availability_request_source'),
  }),
);

export const availabilityRequestDetailSchema = named(
  'AvailabilityRequestDetail',
  'One availability request with its gathered products and the outcome of every matching source.',
  availabilityRequestSchema.extend({
    products: z.array(productSchema),
    sources: z.array(sourceOutcomeSchema),
  }),
);

export const paginationSchema = named(
  'Pagination',
  'Where a page of a list stands.',
  z.strictObject({
    page_size: count(),
    current_page: count(),
    total_items: count(),
    total_pages: count(),
  }),
);

export const fieldDescriptorSchema = named(
  'FieldDescriptor',
  'One address field of a country: whether it is required and the pattern its value must match.',
  z.strictObject({
    country_code: z.string(),
    required: z.boolean(),
    name: about('Human-readable label.', z.string()),
    key: z.enum(['country_code', 'street', 'city', 'house_number', 'house_number_addition', 'postal_code']),
    regex: z.string(),
  }),
);

export const optionsSchema = named(
  'AvailabilityOptions',
  "A country's address fields and the filter values its sources offer.",
  z.strictObject({
    filters: z.strictObject({
      fields: z.array(fieldDescriptorSchema),
      filters: z.strictObject({
        technology_types: z.array(z.string()),
        connection_types: z.array(z.string()),
        networks: z.array(z.string()),
        bandwidths: z.array(bandwidthSchema),
        contract_terms: about('Months.', z.array(z.number().int())),
      }),
    }),
  }),
);

export const authenticationSchema = named(
  'Authentication',
  'A new auth token (1 hour) and refresh token (30 days), and the user they act as.',
  z.strictObject({
    auth_token: about('Send as `X-Auth-Token` (or `Authorization: Bearer`).', z.string()),
    auth_token_expires_at: timestamp(),
    auth_refresh_token: about('Works once, at `POST /authentication`.', z.string()),
    auth_refresh_token_expires_at: timestamp(),
    user: z.strictObject({
      id: id(),
      email: z.string(),
      locale: z.string(),
      first_name: z.string(),
      last_name: z.string(),
      roles: z.array(z.string()),
    }),
  }),
);

export const customerSchema = named(
  'Customer',
  'The contract\'s "Customer (as returned by the list)"; absent text fields are empty strings.',
  z.strictObject({
    id: id(),
    price_plan: reference('price_plan'),
    account_manager: z.strictObject({
      id: id(),
      first_name: z.string(),
      last_name: z.string(),
      _document_type: documentType('user'),
    }),
    interconnected: z.boolean(),
    apply_vat: z.boolean(),
    auto_number: about('Service-assigned customer number.', z.string()),
    name: z.string(),
    external_id: z.string(),
    legal_name: z.string(),
    business_registration_number: z.string(),
    website: about('http(s) URL, or an empty string.', z.string()),
    _document_type: documentType('customer'),
  }),
);

export const projectSchema = named(
  'Project',
  "A customer's project; its id may be given as `project_id` on an availability request.",
  z.strictObject({
    id: id(),
    name: z.string(),
    customer: reference('customer'),
    created_at: timestamp(),
    updated_at: timestamp(),
    _document_type: documentType('project'),
  }),
);

export const instanceProductSchema = named(
  'InstanceProduct',
  "An item of the instance's own catalogue; a mandatory product is added to every quote.",
  z.strictObject({
    id: id(),
    name: z.string(),
    description: z.string(),
    mrc: money('Monthly recurring charge'),
    nrc: money('One-time charge'),
    currency: currency(),
    fulfilment: about(
      'How its order lines are fulfilled: `manual` (marked completed or failed by hand) or `none` (nothing to ' +
        'deliver: the line is `completed` when the order is placed).',
      z.enum(instanceProductFulfilments),
    ),
    _document_type: z.enum(['instance_product', 'mandatory_product']),
  }),
);

export const quoteLineSchema = named(
  'QuoteLine',
  'A product on a quote: a snapshot taken when it was added. Catalogue items have no network, bandwidth or term.',
  z.strictObject({
    id: id(),
    kind: z.enum(quoteLineKinds),
    product_id: about('The product this line was made from.', z.string()),
    name: z.string(),
    source: about(
      'The source that offered it, as named when the line was added; null for the instance’s own products.',
      productSourceSchema.nullable(),
    ),
    network: z.string().nullable(),
    technology_type: z.string().nullable(),
    connection_type: z.string().nullable(),
    bandwidth: bandwidthSchema.nullable(),
    contract_term: about('Months.', z.number().int().nullable()),
    mrc: money('Monthly recurring charge'),
    nrc: money('One-time charge'),
    currency: currency(),
    _document_type: documentType('quote_line'),
  }),
);

export const quoteSchema = named(
  'Quote',
  'The contract\'s "Quote"; totals are summed from the lines in minor units.',
  z.strictObject({
    id: id(),
    name: z.string(),
    instance: reference('instance'),
    products: z.array(quoteLineSchema),
    quote_number: about('Service-assigned: year, sequence, instance code.', z.string()),
    currency: currency(),
    validity_days: count(),
    customer: reference('customer'),
    reference_number: about('Null when none was given.', z.string().nullable()),
    total_products: count(),
    total_mrc: money('Sum of the lines’ monthly charges'),
    total_nrc: money('Sum of the lines’ one-time charges'),
    expiration_date: about(
      'Calendar date (UTC), creation date plus validity days.',
      z.iso.date(),
      '2026-12-22',
    ),
    orders: about(
      'The quote’s orders, newest first. While one is neither `failed` nor `cancelled` the quote is frozen: ' +
        'adding products answers 409.',
      z.array(
        z.strictObject({
          id: id(),
          status: z.enum(orderStatuses),
          _document_type: documentType('order'),
        }),
      ),
    ),
    _document_type: documentType('quote'),
  }),
);

export const problemSchema = named(
  'Problem',
  'An RFC 9457 problem document (`application/problem+json`), sent for every REST error.',
  z.strictObject({
    type: about('A URN naming the error code.', z.string(), 'urn:connectivity-gateway:problem:validation'),
    title: about('Short summary of the error code.', z.string()),
    status: about('The HTTP status code.', z.number().int().min(400).max(599)),
    detail: about('What went wrong with this request; safe to show.', z.string()),
    errors: about(
      'One entry per invalid input value (422).',
      z
        .array(
          z.strictObject({
            path: about('JSON-pointer-like, in snake_case.', z.string(), '/0/address/postal_code'),
            message: z.string(),
          }),
        )
        .optional(),
    ),
  }),
);
