import { z } from 'zod';

/*
 * What the seller checks of the bodies it receives, before any business rule: the required fields and types
 * of the MEF schemas it reads (POQ 7.0.1 `ProductOfferingQualification_Create`, Quote 8.0.1 `Quote_Create`,
 * `EventSubscriptionInput`). Objects stay loose, as in the documents (no `additionalProperties: false`), so
 * everything the buyer sent is echoed back (MEF 87 R23, MEF 115 R26). A failure is answered `400`
 * `Error400` `invalidBody`.
 */

/** An RFC 3339 date-time with an offset (the documents' `format: date-time`). */
export const dateTime = z.iso.datetime({ offset: true });

/** `RelatedContactInformation`: `emailAddress`, `name`, `number`, `role` required. */
export const contact = z.looseObject({
  emailAddress: z.string(),
  name: z.string(),
  number: z.string(),
  role: z.string(),
});

/** `RelatedPlaceRefOrValue`: `@type` and `role` required; the subtype is read by `place.ts`. */
const place = z.looseObject({ '@type': z.string(), role: z.string() });

/** `MEFProductConfiguration`: `@type` required; the MEF 139 body is read by `product.ts`. */
const productConfiguration = z.looseObject({ '@type': z.string() });

/** The product part the sellers read (`productOffering`, `productConfiguration`, `place`). */
export const product = z.looseObject({
  productOffering: z.looseObject({ id: z.string() }).optional(),
  productConfiguration: productConfiguration.optional(),
  place: z.array(place).optional(),
});

/** `MEFProductActionType` (POQ, Quote, Product Order). */
export const action = z.enum(['add', 'modify', 'delete']);

/** POQ 7.0.1 `ProductOfferingQualification_Create`. */
export const poqCreateSchema = z.looseObject({
  instantSyncQualification: z.boolean().optional(),
  requestedPOQCompletionDate: dateTime.optional(),
  provideAlternative: z.boolean().optional(),
  externalId: z.string().optional(),
  projectId: z.string().optional(),
  relatedContactInformation: z.array(contact).min(1),
  productOfferingQualificationItem: z
    .array(
      z.looseObject({
        id: z.string(),
        action,
        product,
        relatedContactInformation: z.array(contact).optional(),
      }),
    )
    .min(1),
});
/** A parsed POQ create body (unknown fields kept). */
export type PoqCreate = z.infer<typeof poqCreateSchema>;
/** One parsed POQ item. */
export type PoqCreateItem = PoqCreate['productOfferingQualificationItem'][number];

const timeUnit = z.enum([
  'calendarMonths',
  'calendarDays',
  'calendarHours',
  'calendarMinutes',
  'businessDays',
  'businessHours',
  'businessMinutes',
]);
const duration = z.looseObject({ amount: z.number().int(), units: timeUnit });

/** Quote 8.0.1 / Product Order 10.0.0 `MEFItemTerm`. */
export const itemTerm = z.looseObject({
  duration,
  endOfTermAction: z.enum(['roll', 'autoDisconnect', 'autoRenew']),
  name: z.string(),
  rollInterval: duration.optional(),
});

/** Quote 8.0.1 `Quote_Create`. */
export const quoteCreateSchema = z.looseObject({
  instantSyncQuote: z.boolean(),
  buyerRequestedQuoteLevel: z.enum(['budgetary', 'firm']),
  requestedQuoteCompletionDate: dateTime.optional(),
  externalId: z.string().optional(),
  projectId: z.string().optional(),
  relatedContactInformation: z.array(contact).optional(),
  quoteItem: z
    .array(
      z.looseObject({
        id: z.string(),
        action,
        product: product.optional(),
        requestedQuoteItemTerm: itemTerm.optional(),
        productOfferingQualificationItem: z
          .looseObject({ id: z.string(), productOfferingQualificationId: z.string() })
          .optional(),
      }),
    )
    .min(1),
});
/** A parsed Quote create body (unknown fields kept). */
export type QuoteCreate = z.infer<typeof quoteCreateSchema>;
/** One parsed quote item. */
export type QuoteCreateItem = QuoteCreate['quoteItem'][number];

/** `EventSubscriptionInput` (POQ and Quote): `callback` required. */
export const hubInputSchema = z.looseObject({
  callback: z.url({ protocol: /^https?$/ }),
  query: z.string().optional(),
});

/** The first problem of a failed parse as an RFC 6901 pointer and message, for an `Error400`'s `message`. */
export function firstIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return 'invalid body';
  return `/${issue.path.map(String).join('/')}: ${issue.message}`;
}
