import { z } from 'zod';
import type { StoredFilters } from '../db/rows.js';
import type { FieldProblem } from '../errors.js';
import { type FieldDescriptor, validatePostalCode } from '../geo/index.js';
import type { FilterValueSets } from './availability-options.js';

/** Most elements one create call may carry. */
export const MAX_BATCH_SIZE = 500;

const text = z.string().max(200);
const bandwidth = z.strictObject({
  download: z.number().int().min(0).max(100_000_000),
  upload: z.number().int().min(0).max(100_000_000),
});

/** Address input: address fields, or coordinates (contract, "Address input"). Keys in camelCase. */
export const addressInputSchema = z.strictObject({
  countryCode: text.optional(),
  street: text.optional(),
  city: text.optional(),
  houseNumber: text.optional(),
  houseNumberAddition: text.optional(),
  postalCode: text.optional(),
  coordinates: z
    .strictObject({
      latitude: z.number().min(-90).max(90),
      longitude: z.number().min(-180).max(180),
    })
    .optional(),
});

/** One element of a create call (contract, "POST /availability-requests"), camelCase. */
export const availabilityRequestInputSchema = z.strictObject({
  address: addressInputSchema,
  bandwidths: z.array(bandwidth).max(100).optional(),
  networks: z.array(text).max(100).optional(),
  contractTerms: z.array(z.number().int().min(1).max(240)).max(100).optional(),
  connectionTypes: z.array(text).max(100).optional(),
  technologyTypes: z.array(text).max(100).optional(),
  customerId: text.nullable().optional(),
  projectId: text.nullable().optional(),
});

/** A parsed element. */
export type AvailabilityRequestInput = z.infer<typeof availabilityRequestInputSchema>;
/** A parsed address input. */
export type AddressInput = z.infer<typeof addressInputSchema>;

/** The batch: a non-empty JSON array of elements. */
export const availabilityRequestBatchSchema = z
  .array(availabilityRequestInputSchema, { error: 'must be a JSON array of availability requests' })
  .min(1, 'must contain at least one availability request')
  .max(MAX_BATCH_SIZE, `must contain at most ${MAX_BATCH_SIZE} availability requests`);

const camelKeys: Record<string, keyof AddressInput> = {
  country_code: 'countryCode',
  street: 'street',
  city: 'city',
  house_number: 'houseNumber',
  house_number_addition: 'houseNumberAddition',
  postal_code: 'postalCode',
};

/** Compiled field patterns by source; the descriptors are fixed data, so the map stays small. */
const fieldPatterns = new Map<string, RegExp>();

function fieldPattern(source: string): RegExp {
  let pattern = fieldPatterns.get(source);
  if (!pattern) {
    pattern = new RegExp(source);
    fieldPatterns.set(source, pattern);
  }
  return pattern;
}

/**
 * Checks address fields against a country's field descriptors: required fields present, each present
 * value matching its pattern (the postal code through the postal-code rules, see `validatePostalCode`).
 */
export function addressFieldProblems(
  address: AddressInput,
  countryCode: string,
  fields: readonly FieldDescriptor[],
  path: string,
): FieldProblem[] {
  const problems: FieldProblem[] = [];
  for (const field of fields) {
    const key = camelKeys[field.key];
    if (!key || key === 'coordinates') continue;
    const value = key === 'countryCode' ? countryCode : (address[key] ?? '');
    const at = `${path}/${key}`;
    if (value.trim() === '') {
      if (field.required) problems.push({ path: at, message: `${field.name} is required in ${countryCode}` });
      continue;
    }
    const valid =
      field.key === 'postal_code'
        ? validatePostalCode(countryCode, value)
        : fieldPattern(field.regex).test(value);
    if (!valid) problems.push({ path: at, message: `${field.name} must match ${field.regex}` });
  }
  return problems;
}

/** The stored form of an element's filters (absent filters become empty arrays). */
export function storedFilters(input: AvailabilityRequestInput): StoredFilters {
  return {
    bandwidths: input.bandwidths ?? [],
    networks: input.networks ?? [],
    contractTerms: input.contractTerms ?? [],
    connectionTypes: input.connectionTypes ?? [],
    technologyTypes: input.technologyTypes ?? [],
  };
}

/** Checks every filter value against the values the options publish for the address's country. */
export function filterProblems(
  filters: StoredFilters,
  allowed: FilterValueSets,
  path: string,
): FieldProblem[] {
  const problems: FieldProblem[] = [];
  const check = <T>(
    key: keyof StoredFilters,
    values: readonly T[],
    known: readonly T[],
    show: (v: T) => string,
  ) => {
    values.forEach((value, index) => {
      if (!known.includes(value)) {
        problems.push({
          path: `${path}/${key}/${index}`,
          message: `${show(value)} is not an available value of ${key}`,
        });
      }
    });
  };
  check('networks', filters.networks, allowed.networks, String);
  check('technologyTypes', filters.technologyTypes, allowed.technologyTypes, String);
  check('connectionTypes', filters.connectionTypes, allowed.connectionTypes, String);
  check('contractTerms', filters.contractTerms, allowed.contractTerms, String);
  const bandwidthKeys = allowed.bandwidths.map((b) => `${b.download}/${b.upload}`);
  check(
    'bandwidths',
    filters.bandwidths.map((b) => `${b.download}/${b.upload}`),
    bandwidthKeys,
    (v) => `bandwidth ${v} kbps`,
  );
  return problems;
}
