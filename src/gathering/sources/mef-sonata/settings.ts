import { z } from 'zod';

/**
 * An `https` URL, or plain `http` to a loopback host only (the supplier simulator, tests): bearer tokens and
 * the client secret must not cross a network in clear text (RFC 6749 §2.3.1, §3.2 require TLS).
 */
const httpUrl = z.url({ protocol: /^https?$/ }).refine((value) => {
  // Zod runs this refinement after a failed URL check too: an unparsable value fails here, never throws.
  const url = URL.parse(value);
  return (
    url !== null && (url.protocol === 'https:' || ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname))
  );
}, 'must be an https URL (plain http only to a loopback host)');

/**
 * Who the buyer is to the seller. MEF 79 (Sn 8.11) requires the Buyer Contact Information
 * (`RelatedContactInformation` with `role: buyerContactInformation`) on every POQ, and MEF 80 on every
 * deferred Quote (`Quote_Common.relatedContactInformation`).
 */
export const sonataContactSchema = z.strictObject({
  name: z.string().min(1).max(200),
  emailAddress: z.email(),
  number: z.string().min(1).max(50),
  organization: z.string().min(1).max(200).optional(),
});

/**
 * How the adapter polls a deferred POQ or Quote (`acknowledged` → `inProgress` → a final state), in
 * milliseconds: when the seller says when it expects to be done (`expectedPOQCompletionDate`,
 * `expectedQuoteCompletionDate`), then; else after `initialDelayMs`, doubling. Every wait lies between
 * `initialDelayMs` and `maxDelayMs`, except a `Retry-After` the seller sends (RFC 9110 §10.2.3), which is
 * honoured as it is — within the source's `timeoutMs`.
 */
export const sonataPollSchema = z.strictObject({
  initialDelayMs: z.number().int().min(1).max(60_000).default(250),
  maxDelayMs: z.number().int().min(1).max(300_000).default(5_000),
});

/**
 * How the order worker reads a placed order it is not notified of (MEF 123 `GET /productOrder/{id}`), in
 * milliseconds. An order is read again after as long as it has been quiet (since its lines last changed),
 * never sooner than `initialDelayMs` nor later than `maxDelayMs`: the wait doubles while nothing happens and
 * starts again at `initialDelayMs` after each change. When an open item's `expectedCompletionDate` (MEF 123
 * R46) comes before that, the order is read then. Orders move in hours to weeks, not in the seconds a POQ
 * takes, so this is not {@link sonataPollSchema}: by default a first read 1 s after the placement, and at
 * least one read every 5 minutes (about 6,000 reads over a three-week delivery that never changes).
 */
export const sonataOrderPollSchema = z.strictObject({
  initialDelayMs: z.number().int().min(1).max(3_600_000).default(1_000),
  maxDelayMs: z.number().int().min(1).max(86_400_000).default(300_000),
});

const code = z.string().min(1).max(50);

/**
 * One product offering of the seller, as agreed at onboarding (MEF 87 `ProductOfferingRef.id`: "The Buyer
 * and the Seller exchange information about offerings' ids during the onboarding process"): the MEF 139
 * Basic Internet Access product for one technology type and connection type, with the bandwidths (kbps)
 * and contract terms (months) it comes in. Neither MEF 139 nor the POQ/Quote items carry the access
 * technology, so the offering is where the gateway learns it (docs/mef-sonata-mapping.md §2a).
 */
export const sonataProductOfferingSchema = z.strictObject({
  productOfferingId: z.string().min(1).max(200),
  technologyType: code,
  connectionType: code,
  bandwidths: z
    .array(
      z.strictObject({
        download: z.number().int().min(1).max(100_000_000),
        upload: z.number().int().min(1).max(100_000_000),
      }),
    )
    .min(1)
    .max(100),
  contractTerms: z.array(z.number().int().min(1).max(240)).min(1).max(20),
});
/** A configured product offering; see {@link sonataProductOfferingSchema}. */
export type SonataProductOfferingSettings = z.output<typeof sonataProductOfferingSchema>;

/**
 * The settings of one `mef-sonata` source (one seller, e.g. one carrier's Sonata endpoint). Strict: an
 * unknown field (a misspelt one) is refused by name rather than dropped.
 *
 * - `baseUrl`: the seller's base URL; the adapter appends the documents' base paths
 *   (`/mefApi/sonata/productOfferingQualification/v7/…`, `/mefApi/sonata/quoteManagement/v8/…`, the
 *   `servers` of MEF 87 POQ 7.0.1 and MEF 115 Quote 8.0.1). A query string it carries is kept on every call.
 * - `buyerId` / `sellerId`: sent as query parameters only when set — the documents say they MUST be given
 *   only when the requester (responder) represents more than one buyer (seller) (MEF 79 Sn 8.8).
 * - `oauth2`: the client-credentials grant (RFC 6749 §4.4) the seller's API gateway issues bearer tokens
 *   with. `clientSecret` is a secret: it is only ever sent to `tokenUrl`, never logged or returned.
 * - `buyerContact`: the Buyer Contact Information every POQ and Quote carries.
 * - `productOfferings`: the offerings to qualify ({@link sonataProductOfferingSchema}).
 * - `interaction`: `instant` (`instantSyncQualification` / `instantSyncQuote` true), `deferred` (false,
 *   then poll `GET …/{id}`), `notifications` (false, register a hub listener, wait for its events).
 * - `poll`: the polling back-off of POQs and Quotes ({@link sonataPollSchema}).
 * - `orderPoll`: when placed orders are read ({@link sonataOrderPollSchema}).
 * - `billingAccountId`: the buyer's billing account at the seller, sent as every order item's
 *   `billingAccount.id` (MEF 123 R33: required on every `add` item). Optional: without it, orders name the
 *   `buyerId`, else the code of the instance the source belongs to (`sonataBillingAccountId` in
 *   src/ordering/mef-sonata/order-request.ts).
 */
export const sonataSourceSettingsSchema = z.strictObject({
  baseUrl: httpUrl,
  buyerId: z.string().min(1).max(200).optional(),
  sellerId: z.string().min(1).max(200).optional(),
  oauth2: z.strictObject({
    tokenUrl: httpUrl,
    clientId: z.string().min(1).max(500),
    clientSecret: z.string().min(1).max(2000),
    scope: z.string().min(1).max(1000).optional(),
  }),
  buyerContact: sonataContactSchema,
  productOfferings: z.array(sonataProductOfferingSchema).min(1).max(50),
  interaction: z.enum(['instant', 'deferred', 'notifications']),
  poll: sonataPollSchema.prefault({}),
  orderPoll: sonataOrderPollSchema.prefault({}),
  billingAccountId: z.string().min(1).max(200).optional(),
});

/** Parsed settings of a `mef-sonata` source; see {@link sonataSourceSettingsSchema}. */
export type SonataSourceSettings = z.output<typeof sonataSourceSettingsSchema>;
/** Settings as an operator gives them (defaults not yet applied). */
export type SonataSourceSettingsInput = z.input<typeof sonataSourceSettingsSchema>;
/** How a source waits for deferred answers. */
export type SonataInteraction = SonataSourceSettings['interaction'];

/**
 * The settings without the client secret, for anything shown or logged: `oauth2.hasClientSecret` says
 * whether one is set.
 */
export function redactedSonataSettings(settings: SonataSourceSettings): Omit<
  SonataSourceSettings,
  'oauth2'
> & {
  oauth2: Omit<SonataSourceSettings['oauth2'], 'clientSecret'> & { hasClientSecret: boolean };
} {
  const { clientSecret, ...oauth2 } = settings.oauth2;
  return { ...settings, oauth2: { ...oauth2, hasClientSecret: clientSecret.length > 0 } };
}
