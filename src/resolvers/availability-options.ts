import { z } from 'zod';
import type { Context } from '../context.js';
import type { CatalogValueSets, SourceRow } from '../db/rows.js';
import { addressFieldDescriptors, type FieldDescriptor, isCountryCode } from '../geo/index.js';
import { requireViewer } from './authentication.js';
import { parseInput } from './validation.js';

/** The filter values offered in a country: the catalogue's value sets and its sources' networks. */
export interface FilterValueSets extends CatalogValueSets {
  readonly networks: readonly string[];
}

/** What the options endpoint publishes for one country (contract, "GET /availability-requests/options"). */
export interface AvailabilityOptions {
  countryCode: string;
  fields: FieldDescriptor[];
  filters: FilterValueSets;
  /** The enabled sources behind the filter values; not published, used to match new requests. */
  sources: SourceRow[];
}

/** An ISO 3166-1 alpha-2 country code, upper case and assigned. */
export const countryCodeSchema = z
  .string()
  .regex(/^[A-Z]{2}$/, { error: 'must be an ISO 3166-1 alpha-2 code in upper case, e.g. NL', abort: true })
  .refine(isCountryCode, 'is not an assigned ISO 3166-1 alpha-2 country code');

/**
 * The filter values that `sources` offer: the distinct values of their catalogues, and their networks
 * (sorted).
 */
export async function filterValueSets(ctx: Context, sources: SourceRow[]): Promise<FilterValueSets> {
  const values = await ctx.db.catalogValueSets(sources.map((source) => source.id));
  const networks = [...new Set(sources.map((source) => source.network))].sort();
  return { ...values, networks };
}

/**
 * Options for a country without the permission check, for callers that already hold a viewer.
 * Field descriptors come from the postal-code data (NL as the contract fixes it); filter values from
 * the instance's enabled sources for that country and what their catalogues offer.
 */
export async function optionsForCountry(
  ctx: Context,
  instanceId: string,
  countryCode: string,
): Promise<AvailabilityOptions> {
  const fields = addressFieldDescriptors(countryCode) ?? [];
  const sources = await ctx.db.listEnabledSources(instanceId, countryCode);
  return { countryCode, fields, filters: await filterValueSets(ctx, sources), sources };
}

/**
 * The address fields and filter values of a country for the caller's instance.
 * @throws {AppError} `VALIDATION` (path `/country_code`) for a malformed or unknown country code;
 *   `UNAUTHENTICATED` / `FORBIDDEN` as {@link requireViewer}.
 */
export async function availabilityOptions(
  ctx: Context,
  input: { countryCode?: unknown },
): Promise<AvailabilityOptions> {
  const viewer = requireViewer(ctx, ['connectivity_check']);
  const { countryCode } = parseInput(
    z.object({ countryCode: countryCodeSchema }),
    input,
    'The country code is invalid.',
  );
  return optionsForCountry(ctx, viewer.instanceId, countryCode);
}
