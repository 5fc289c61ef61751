import type {
  AvailabilityRequestRecord,
  CustomerRecord,
  InstanceProductRow,
  ProductRow,
  ProductSource,
  ProjectRecord,
  QuoteLineRow,
  QuoteRecord,
  ShownAddress,
  SourceOutcome,
} from '../db/rows.js';
import type { OrderStatus } from '../db/values.js';
import { toMajorUnits } from '../money.js';
import type { AuthenticationResult } from '../resolvers/authentication.js';
import type { AvailabilityOptions } from '../resolvers/availability-options.js';
import { progressPercentage } from '../resolvers/availability-requests.js';
import { autoNumber } from '../resolvers/customers.js';
import type { Pagination } from '../resolvers/pagination.js';
import { outcomeSource, productSourceOf } from '../resolvers/product-sources.js';
import { quoteTotals } from '../resolvers/quotes.js';
import { isoSeconds } from '../timestamps.js';

/**
 * ISO 8601 with an explicit UTC offset, to the second (`2026-11-22T10:04:50+00:00`), as the contract's
 * "ISO 8601 timestamp with UTC offset".
 */
export function isoTimestamp(date: Date): string {
  // A list page formats two of these per row: `isoSeconds` costs a tenth of `toISOString` (issue 50).
  return isoSeconds(date);
}

/** The contract's "Address record". */
export function addressDocument(address: ShownAddress) {
  return {
    id: address.id,
    street: address.street,
    city: address.city,
    continent_code: address.continentCode,
    country_code: address.countryCode,
    postal_code: address.postalCode,
    house_number: address.houseNumber,
    house_number_addition: address.houseNumberAddition,
    coordinates:
      address.latitude === null || address.longitude === null
        ? null
        : { latitude: address.latitude, longitude: address.longitude },
    _document_type: 'address' as const,
  };
}

/** The contract's "Availability request (as returned by the list)", including `status`. */
export function availabilityRequestDocument({ request, address }: AvailabilityRequestRecord) {
  return {
    id: request.id,
    address: addressDocument(address),
    created_at: isoTimestamp(request.createdAt),
    updated_at: isoTimestamp(request.updatedAt),
    filters: {
      contract_terms: request.filters.contractTerms,
      connection_types: request.filters.connectionTypes,
      bandwidths: request.filters.bandwidths,
      technology_types: request.filters.technologyTypes,
      networks: request.filters.networks,
    },
    networks_progress_percentage: progressPercentage(request).toFixed(2),
    status: request.status,
    _document_type: 'availability_request' as const,
  };
}

/**
 * An availability-request product (DESIGN.md): kbps, months, sale prices in the currency's major unit, and
 * the source that offered it (issue 49; `sources`: the request's source outcomes by source id).
 */
export function productDocument(product: ProductRow, sources: ReadonlyMap<string, SourceOutcome>) {
  const outcome = sources.get(product.sourceId);
  return {
    id: product.id,
    source: sourceDocument(outcome ? outcomeSource(outcome) : null),
    network: product.network,
    technology_type: product.technologyType,
    connection_type: product.connectionType,
    bandwidth: { download: product.downloadKbps, upload: product.uploadKbps },
    contract_term: product.contractTermMonths,
    mrc: toMajorUnits(product.mrcMinor, product.currency),
    nrc: toMajorUnits(product.nrcMinor, product.currency),
    currency: product.currency,
    _document_type: 'availability_request_product' as const,
  };
}

/** One source's outcome on a request: its status and, when it failed, the error. */
export function sourceOutcomeDocument(outcome: SourceOutcome) {
  return {
    source_id: outcome.sourceId,
    name: outcome.sourceName,
    network: outcome.network,
    status: outcome.status,
    attempts: outcome.attempts,
    product_count: outcome.productCount,
    error:
      outcome.errorCode === null ? null : { code: outcome.errorCode, message: outcome.errorMessage ?? '' },
    _document_type: 'availability_request_source' as const,
  };
}

/** The `pagination` object of REST lists. */
export function paginationDocument(pagination: Pagination) {
  return {
    page_size: pagination.pageSize,
    current_page: pagination.currentPage,
    total_items: pagination.totalItems,
    total_pages: pagination.totalPages,
  };
}

/** `data` of the options endpoint: `{filters: {fields, filters}}` (contract, "GET .../options"). */
export function optionsDocument(options: AvailabilityOptions) {
  return {
    filters: {
      fields: options.fields.map((field) => ({
        country_code: field.countryCode,
        required: field.required,
        name: field.name,
        key: field.key,
        regex: field.regex,
      })),
      filters: {
        // Copies: the value sets are shared (see `catalogValueSets`), a document is the caller's own.
        technology_types: [...options.filters.technologyTypes],
        connection_types: [...options.filters.connectionTypes],
        networks: [...options.filters.networks],
        bandwidths: options.filters.bandwidths.map(({ download, upload }) => ({ download, upload })),
        contract_terms: [...options.filters.contractTerms],
      },
    },
  };
}

/** `data` of `POST /authentication` (DESIGN.md, "Auth"). */
export function authenticationDocument(result: AuthenticationResult) {
  return {
    auth_token: result.authToken,
    auth_token_expires_at: isoTimestamp(result.authTokenExpiresAt),
    auth_refresh_token: result.authRefreshToken,
    auth_refresh_token_expires_at: isoTimestamp(result.authRefreshTokenExpiresAt),
    user: {
      id: result.user.id,
      email: result.user.email,
      locale: result.user.locale,
      first_name: result.user.firstName,
      last_name: result.user.lastName,
      roles: result.user.roles,
    },
  };
}

/** The contract's "Customer (as returned by the list)"; absent text fields are "" (the contract types them string). */
export function customerDocument({ customer, pricePlan, accountManager, financialDetails }: CustomerRecord) {
  return {
    id: customer.id,
    price_plan: { id: pricePlan.id, name: pricePlan.name, _document_type: 'price_plan' as const },
    account_manager: {
      id: accountManager.id,
      first_name: accountManager.firstName,
      last_name: accountManager.lastName,
      _document_type: 'user' as const,
    },
    interconnected: customer.interconnected,
    apply_vat: financialDetails?.applyVat ?? false,
    auto_number: autoNumber(customer.autoSequence),
    name: customer.name,
    external_id: customer.externalId ?? '',
    legal_name: customer.legalName ?? '',
    business_registration_number: customer.businessRegistrationNumber ?? '',
    website: customer.website ?? '',
    _document_type: 'customer' as const,
  };
}

/** A project record (the contract shows only its id): its name, customer and timestamps. */
export function projectDocument({ project, customerName }: ProjectRecord) {
  return {
    id: project.id,
    name: project.name,
    customer: { id: project.customerId, name: customerName, _document_type: 'customer' as const },
    created_at: isoTimestamp(project.createdAt),
    updated_at: isoTimestamp(project.updatedAt),
    _document_type: 'project' as const,
  };
}

/** An instance or mandatory product: prices in the currency's major unit. */
export function instanceProductDocument(product: InstanceProductRow) {
  return {
    id: product.id,
    name: product.name,
    description: product.description,
    mrc: toMajorUnits(product.mrcMinor, product.currency),
    nrc: toMajorUnits(product.nrcMinor, product.currency),
    currency: product.currency,
    fulfilment: product.fulfilment,
    _document_type: product.mandatory ? ('mandatory_product' as const) : ('instance_product' as const),
  };
}

/**
 * The slim source a product or line names (issue 49, `productSourceOf`): `{ id, name, type }`, never its
 * settings; null for the instance's own products.
 */
export function sourceDocument(source: ProductSource | null) {
  if (!source) return null;
  return {
    id: source.id,
    name: source.name,
    type: source.type,
    _document_type: 'source' as const,
  };
}

/** An item of a quote's `products` array: the snapshot the line keeps. */
export function quoteLineDocument(line: QuoteLineRow) {
  return {
    id: line.id,
    kind: line.kind,
    product_id: line.productId,
    name: line.name,
    source: sourceDocument(productSourceOf(line)),
    network: line.network,
    technology_type: line.technologyType,
    connection_type: line.connectionType,
    bandwidth:
      line.downloadKbps === null || line.uploadKbps === null
        ? null
        : { download: line.downloadKbps, upload: line.uploadKbps },
    contract_term: line.contractTermMonths,
    mrc: toMajorUnits(line.mrcMinor, line.currency),
    nrc: toMajorUnits(line.nrcMinor, line.currency),
    currency: line.currency,
    _document_type: 'quote_line' as const,
  };
}

/**
 * The contract's "Quote": totals summed from the lines in minor units, and its orders' ids and statuses
 * (issue 49; newest first), additive to the contract.
 */
export function quoteDocument(record: QuoteRecord, orders: readonly { id: string; status: OrderStatus }[]) {
  const { quote } = record;
  const totals = quoteTotals(record);
  return {
    id: quote.id,
    name: quote.name,
    instance: { id: record.instance.id, name: record.instance.name, _document_type: 'instance' as const },
    products: record.lines.map(quoteLineDocument),
    quote_number: quote.quoteNumber,
    currency: quote.currency,
    validity_days: quote.validityDays,
    customer: { id: record.customer.id, name: record.customer.name, _document_type: 'customer' as const },
    reference_number: quote.referenceNumber,
    total_products: totals.totalProducts,
    total_mrc: toMajorUnits(totals.totalMrcMinor, quote.currency),
    total_nrc: toMajorUnits(totals.totalNrcMinor, quote.currency),
    expiration_date: quote.expirationDate,
    orders: orders.map((order) => ({ id: order.id, status: order.status, _document_type: 'order' as const })),
    _document_type: 'quote' as const,
  };
}
