import { electronicFormatIBAN, isValidIBAN } from 'ibantools';
import { checkVAT, countries as vatCountries } from 'jsvat';
import { z } from 'zod';
import { isCountryCode, normalisePostalCode, validatePostalCode } from '../geo/index.js';
import { isCurrencyCode } from '../money.js';

/** Optional text: trimmed, bounded; null and "" count as not given. */
const text = (max: number) =>
  z
    .string()
    .trim()
    .max(max)
    .nullish()
    .transform((value) => (value ? value : null));

/** A formatted text field where "" and null mean "not given", as for every other optional text field. */
function blankAsAbsent<S extends z.ZodType<string>>(schema: S) {
  return z
    .preprocess(
      (value) => (typeof value === 'string' && value.trim() === '' ? null : value),
      schema.nullish(),
    )
    .transform((value) => value ?? null);
}

const countryCode = z
  .string()
  .refine(
    (value) => /^[A-Z]{2}$/.test(value) && isCountryCode(value),
    'must be an ISO 3166-1 alpha-2 country code, e.g. NL',
  )
  .nullish()
  .transform((value) => value ?? null);

/** Financial details (contract, "Financial details fields"), camelCase. */
export const financialDetailsInputSchema = z
  .strictObject({
    name: text(200),
    email: blankAsAbsent(z.email('must be an e-mail address').max(254)),
    street: text(200),
    houseNumber: text(20),
    houseNumberAddition: text(20),
    postalCode: text(20),
    city: text(200),
    region: text(200),
    countryCode,
    vatNumber: text(30).refine(
      (value) =>
        value === null || checkVAT(value.replace(/[\s.-]/g, '').toUpperCase(), vatCountries).isValidFormat,
      'is not a VAT number in a known country format (e.g. NL123456789B01)',
    ),
    bankAccountNumber: text(42)
      .transform((value) => (value === null ? null : (electronicFormatIBAN(value) ?? value)))
      .refine((value) => value === null || isValidIBAN(value), 'must be a valid IBAN'),
    applyVat: z
      .boolean()
      .nullish()
      .transform((value) => value ?? false),
    paymentTermDays: z
      .number()
      .int()
      .min(0)
      .max(365)
      .nullish()
      .transform((value) => value ?? null),
  })
  .superRefine((details, ctx) => {
    if (
      details.postalCode &&
      details.countryCode &&
      !validatePostalCode(details.countryCode, details.postalCode)
    ) {
      ctx.addIssue({
        code: 'custom',
        path: ['postalCode'],
        message: `is not a postal code of ${details.countryCode}`,
      });
    }
  })
  .transform((details) => {
    // Stored normalised like request addresses (`1016 XA` → `1016XA`) when the country is known.
    const country = details.countryCode;
    return details.postalCode && country && isCountryCode(country)
      ? { ...details, postalCode: normalisePostalCode(country, details.postalCode) }
      : details;
  });

/**
 * A customer to create (contract, "Customer (as created)"), camelCase. Only `name` is required. Strict:
 * fields the service assigns (`id`, `auto_number`, `price_plan`, `instance_id`, …) are unknown here and
 * rejected, so a client never sets them.
 */
export const customerInputSchema = z.strictObject({
  name: z.string().trim().min(1, 'is required').max(200),
  externalId: text(100),
  legalName: text(200),
  businessRegistrationNumber: text(50),
  website: blankAsAbsent(z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).max(2048)),
  interconnected: z
    .boolean()
    .nullish()
    .transform((value) => value ?? false),
  preferredCurrency: z
    .string()
    .refine(isCurrencyCode, 'must be an ISO 4217 currency code, e.g. EUR')
    .nullish()
    .transform((value) => value ?? null),
  monthlyAvailabilityRequestLimit: z
    .number()
    .int()
    .min(0)
    .max(1_000_000)
    .nullish()
    .transform((value) => value ?? null),
  internalNotes: text(5000),
  agentId: text(100),
  networkNameOverride: text(100),
  customerRegion: text(100),
  financialDetails: financialDetailsInputSchema.nullish().transform((value) => value ?? null),
});

/** A validated customer. */
export type CustomerInput = z.output<typeof customerInputSchema>;

/** Case-folds a customer name or search for case-insensitive matching (Unicode-aware, unlike SQLite's lower()). */
export function foldName(value: string): string {
  return value.normalize('NFKC').toLocaleLowerCase('und');
}
