import { z } from 'zod';
import { SourceError } from '../types.js';

/*
 * The parts of the seller's answers the buyer reads (POQ 7.0.1 `ProductOfferingQualification`, Quote
 * 8.0.1 `Quote`). Only what docs/mef-sonata-mapping.md §4 maps is checked; everything else is ignored, as
 * the documents allow sellers to add.
 */

const id = z.string().min(1).max(200);

/** `TerminationError` (POQ and Quote items): why an item was terminated. */
const terminationError = z.looseObject({
  code: z.string().max(100).optional(),
  propertyPath: z.string().max(1000).optional(),
  value: z.string().max(1000).optional(),
});
/** One `TerminationError`. */
export type TerminationError = z.infer<typeof terminationError>;

/** POQ `MEFPOQTaskStateType`. */
export const poqStates = [
  'acknowledged',
  'inProgress',
  'done.ready',
  'done.unableToProvide',
  'terminatedWithError',
] as const;

/** POQ 7.0.1 `ProductOfferingQualification` (id, state, items' id, state, confidence, termination errors). */
export const poqSchema = z.looseObject({
  id,
  state: z.enum(poqStates),
  /** When the seller expects to be done (deferred answers): a hint for the next poll. */
  expectedPOQCompletionDate: z.iso.datetime({ offset: true }).optional().catch(undefined),
  productOfferingQualificationItem: z
    .array(
      z.looseObject({
        id,
        state: z.enum(['acknowledged', 'inProgress', 'done.ready', 'done.abandoned', 'terminatedWithError']),
        serviceabilityConfidence: z.enum(['green', 'yellow', 'red']).optional(),
        terminationError: z.array(terminationError).max(100).optional(),
      }),
    )
    .max(5000),
});
/** A parsed POQ answer. */
export type Poq = z.infer<typeof poqSchema>;
/** One parsed POQ item. */
export type PoqItem = Poq['productOfferingQualificationItem'][number];

/** When the seller expects a deferred POQ to be complete (epoch ms), or null when it does not say. */
export function poqExpectedAt(poq: Poq): number | null {
  return poq.expectedPOQCompletionDate ? Date.parse(poq.expectedPOQCompletionDate) : null;
}

/** Whether a POQ reached a completion state (`done.*` or `terminatedWithError`; mapping A1–A3b). */
export function poqIsFinal(poq: Poq): boolean {
  return poq.state !== 'acknowledged' && poq.state !== 'inProgress';
}

const money = z.looseObject({ unit: z.string().max(10).optional(), value: z.number().optional() });
const duration = z.looseObject({ amount: z.number(), units: z.string().max(50) });
const informationRate = z.looseObject({ irValue: z.number(), irUnits: z.string().max(10) });
const envelope = z.array(z.looseObject({ maxIr: informationRate.optional() })).max(10);

/** Quote 8.0.1 `QuotePrice` (type, period, duty-free amount). */
const quotePrice = z.looseObject({
  priceType: z.string().max(50).optional(),
  recurringChargePeriod: z.string().max(50).optional(),
  price: z.looseObject({ dutyFreeAmount: money.optional() }).optional(),
});
/** One parsed `QuotePrice`. */
export type QuotePrice = z.infer<typeof quotePrice>;

/** Quote `MEFQuoteStateType` values that are no completion: the seller is still working (mapping B1). */
export const unfinishedQuoteStates = ['acknowledged', 'inProgress', 'inProgress.draft'];

/** Quote 8.0.1 `Quote` (id, state, items' id, state, prices, term, bandwidth, termination errors). */
export const quoteSchema = z.looseObject({
  id,
  state: z.string().min(1).max(50),
  /** When the seller expects to be done (deferred answers): a hint for the next poll. */
  expectedQuoteCompletionDate: z.iso.datetime({ offset: true }).optional().catch(undefined),
  /** How long the seller holds its prices (MEF 115 `validFor`): kept with each offer for ordering it. */
  validFor: z
    .looseObject({
      startDateTime: z.iso.datetime({ offset: true }).optional(),
      endDateTime: z.iso.datetime({ offset: true }).optional(),
    })
    .optional()
    .catch(undefined),
  quoteItem: z
    .array(
      z.looseObject({
        id,
        state: z.string().min(1).max(50),
        quoteItemPrice: z.array(quotePrice).max(100).optional(),
        quoteItemTerm: z
          .array(
            z.looseObject({
              duration,
              name: z.string().max(200).optional(),
              endOfTermAction: z.string().max(50).optional(),
              rollInterval: duration.optional(),
              description: z.string().max(1000).optional(),
            }),
          )
          .max(1)
          .optional(),
        product: z
          .looseObject({
            productOffering: z.looseObject({ id }).optional(),
            productConfiguration: z
              .looseObject({
                ipUniAccessLink: z
                  .looseObject({
                    egressBwpEnvelope: envelope.optional(),
                    ingressBwpEnvelope: envelope.optional(),
                  })
                  .optional(),
              })
              .optional(),
          })
          .optional(),
        terminationError: z.array(terminationError).max(100).optional(),
      }),
    )
    .max(5000),
});
/** A parsed Quote answer. */
export type Quote = z.infer<typeof quoteSchema>;
/** One parsed quote item. */
export type QuoteItem = Quote['quoteItem'][number];

/** When the seller expects a deferred Quote to be complete (epoch ms), or null when it does not say. */
export function quoteExpectedAt(quote: Quote): number | null {
  return quote.expectedQuoteCompletionDate ? Date.parse(quote.expectedQuoteCompletionDate) : null;
}

/** Whether a Quote reached a completion state (mapping B1–B3). */
export function quoteIsFinal(quote: Quote): boolean {
  return !unfinishedQuoteStates.includes(quote.state);
}

/**
 * Parses an answer with `schema`.
 *
 * @throws {SourceError} `INVALID_RESPONSE` naming the first place it breaks the document's shape.
 */
export function parseAnswer<T>(schema: z.ZodType<T>, body: unknown, what: string): T {
  const parsed = schema.safeParse(body);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw new SourceError(
    'INVALID_RESPONSE',
    `The seller’s ${what} breaks the MEF document at /${issue?.path.join('/') ?? ''}: ${issue?.message ?? ''}`,
    false,
  );
}
