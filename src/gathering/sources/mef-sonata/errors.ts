import { z } from 'zod';
import { SourceError } from '../types.js';

/**
 * The source error codes a `mef-sonata` source records on a request (`sources[].error.code`). Besides the
 * codes every remote source shares (`TIMEOUT`, `UNREACHABLE`, `UPSTREAM_5XX`, `UPSTREAM_4XX`, `REDIRECT`,
 * `RESPONSE_TOO_LARGE`, `MALFORMED_RESPONSE`, `INVALID_RESPONSE`, `CIRCUIT_OPEN`, `OVERLOADED`,
 * `NOT_CONFIGURED`; see docs/supplier-contract.md), a Sonata seller's answers map onto:
 *
 * | code | what the seller said | source |
 * |---|---|---|
 * | `SONATA_BAD_REQUEST` | 400 `Error400` (its `code`: invalidBody, invalidQuery, …) | MEF 87/115 `Error400` |
 * | `SONATA_UNAUTHORIZED` | 401 `Error401` again after a fresh token | `Error401` |
 * | `SONATA_FORBIDDEN` | 403 `Error403` (accessDenied, forbiddenRequester, tooManyUsers) | `Error403` |
 * | `SONATA_NOT_FOUND` | 404 `Error404` for a POQ or Quote it had created | `Error404` |
 * | `SONATA_UNPROCESSABLE` | 422, an array of `Error422` (code + propertyPath) | `Error422` |
 * | `SONATA_THROTTLED` | 429 to a create call | RFC 6585 §4 |
 * | `SONATA_TOKEN_REFUSED` | the token endpoint refused the client credentials | RFC 6749 §5.2 |
 * | `SONATA_TOKEN_UNAVAILABLE` | the token endpoint failed or could not be reached (retried) | RFC 6749 §5.2 |
 * | `SONATA_NO_LOCATION` | (no call) the address has neither a street nor exact coordinates (given or address precision) to qualify | mapping P22 |
 * | `SONATA_UNABLE_TO_PROVIDE` | POQ `done.unableToProvide`: no answer within the requested time | `MEFPOQTaskStateType` |
 * | `SONATA_POQ_TERMINATED` | POQ `terminatedWithError` (its items' `terminationError`s) | `MEFPOQTaskStateType` |
 * | `SONATA_NOT_SERVICEABLE` | every POQ item `done.ready` with `serviceabilityConfidence: red` | `MEFServiceabilityColor` |
 * | `SONATA_QUOTE_UNABLE_TO_PROVIDE` | every quote `unableToProvide`, `rejected` or `abandoned` | `MEFQuoteStateType` |
 * | `SONATA_NO_PRICE` | qualified items were quoted, but no quote item carried a recurring price | `QuoteItem.quoteItemPrice` |
 *
 * The last five are raised only when nothing at all became an offer; a partly answered query returns its
 * offers and reports the rest (see `SonataDeclinedItem`), which the engine shows on the succeeded source as
 * the note `SONATA_PARTLY_DECLINED` (see `partlyDeclinedNote`).
 */
export const sonataErrorCodes = [
  'SONATA_BAD_REQUEST',
  'SONATA_UNAUTHORIZED',
  'SONATA_FORBIDDEN',
  'SONATA_NOT_FOUND',
  'SONATA_UNPROCESSABLE',
  'SONATA_THROTTLED',
  'SONATA_TOKEN_REFUSED',
  'SONATA_TOKEN_UNAVAILABLE',
  'SONATA_NO_LOCATION',
  'SONATA_UNABLE_TO_PROVIDE',
  'SONATA_POQ_TERMINATED',
  'SONATA_NOT_SERVICEABLE',
  'SONATA_QUOTE_UNABLE_TO_PROVIDE',
  'SONATA_NO_PRICE',
] as const;
/** A Sonata-specific source error code; see {@link sonataErrorCodes}. */
export type SonataErrorCode = (typeof sonataErrorCodes)[number];

/** MEF 87/115 `Error` with its `code` (the shape every `Error4xx`/`Error5xx` shares). */
const mefErrorSchema = z.looseObject({
  code: z.string().max(100),
  reason: z.string().max(1000).optional(),
  message: z.string().max(5000).optional(),
  propertyPath: z.string().max(1000).optional(),
});
type MefError = z.infer<typeof mefErrorSchema>;

/** What a seller's error body says, in one line: `code (reason) at propertyPath`, each part when given. */
function describe(error: MefError): string {
  const reason = error.reason ? ` (${clip(error.reason, 200)})` : '';
  const at = error.propertyPath ? ` at ${clip(error.propertyPath, 200)}` : '';
  return `${clip(error.code, 100)}${reason}${at}`;
}

function clip(text: string, length: number): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > length ? `${line.slice(0, length - 1)}…` : line;
}

/** The MEF errors in a body: one `Error4xx` object, or the array a 422 answers (MEF 87/115 `Error422`). */
function mefErrors(body: unknown): MefError[] {
  const list = z.array(mefErrorSchema).max(100).safeParse(body);
  if (list.success) return list.data;
  const single = mefErrorSchema.safeParse(body);
  return single.success ? [single.data] : [];
}

/**
 * The source error for a seller's 4xx answer (after any token refresh), from its status and the MEF
 * `Error400`/`Error401`/`Error403`/`Error404`/`Error422` body (MEF 87 POQ 7.0.1, MEF 115 Quote 8.0.1).
 * None of them is retried: the same request would get the same answer.
 *
 * @param what what was asked, for the message ("POQ create", "Quote 17 retrieve").
 */
export function clientErrorFor(status: number, body: unknown, what: string): SourceError {
  const errors = mefErrors(body);
  const said = errors.length > 0 ? `: ${errors.slice(0, 3).map(describe).join('; ')}` : '';
  const more = errors.length > 3 ? ` (+${errors.length - 3} more)` : '';
  const message = `The seller answered ${status} to the ${what}${said}${more}.`;
  const code: string =
    status === 400
      ? 'SONATA_BAD_REQUEST'
      : status === 401
        ? 'SONATA_UNAUTHORIZED'
        : status === 403
          ? 'SONATA_FORBIDDEN'
          : status === 404
            ? 'SONATA_NOT_FOUND'
            : status === 422
              ? 'SONATA_UNPROCESSABLE'
              : status === 429
                ? 'SONATA_THROTTLED'
                : 'UPSTREAM_4XX';
  return new SourceError(code, message, false);
}

/** The source error for a seller's 5xx answer (`Error500`, `Error501`, a gateway's 502–504): retried. */
export function serverErrorFor(
  status: number,
  body: unknown,
  what: string,
  retryAfterMs: number | null,
): SourceError {
  const [error] = mefErrors(body);
  const said = error ? `: ${describe(error)}` : '';
  return new SourceError(
    'UPSTREAM_5XX',
    `The seller answered ${status} to the ${what}${said}.`,
    true,
    retryAfterMs,
  );
}

/** Replaces every occurrence of `secret` in a message, so a seller that echoes it cannot leak it. */
export function withoutSecret(error: SourceError, secret: string): SourceError {
  if (secret.length < 4 || !error.message.includes(secret)) return error;
  return new SourceError(
    error.code,
    error.message.replaceAll(secret, '[redacted]'),
    error.retryable,
    error.retryAfterMs,
  );
}
