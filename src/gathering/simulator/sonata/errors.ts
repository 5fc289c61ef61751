/*
 * MEF error bodies (POQ 7.0.1 / Quote 8.0.1 `Error` and its subtypes): `reason` is required and at most 255
 * characters; `code` is each subtype's enumeration.
 */

/** `Error422Code`, also the code of a `TerminationError` (POQ and Quote). */
export type Error422Code =
  | 'missingProperty'
  | 'invalidValue'
  | 'invalidFormat'
  | 'referenceNotFound'
  | 'unexpectedProperty'
  | 'tooManyRecords'
  | 'otherIssue';

/** A business problem of one property, as an `Error422` entry or an item's `TerminationError`. */
export interface ItemProblem {
  code: Error422Code;
  /** RFC 6901 pointer into the request body. */
  propertyPath: string;
  reason: string;
}

/** A status and body the seller answers with. */
export interface SellerAnswer {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

const reason = (text: string) => text.slice(0, 255);

/** `400` `Error400` (one object, not a list). */
export function error400(
  code: 'missingQueryParameter' | 'missingQueryValue' | 'invalidQuery' | 'invalidBody',
  text: string,
  message?: string,
): SellerAnswer {
  return { status: 400, body: { code, reason: reason(text), ...(message ? { message } : {}) } };
}

/** `401` `Error401`, with the RFC 6750 §3 challenge. */
export function error401(code: 'missingCredentials' | 'invalidCredentials', text: string): SellerAnswer {
  return {
    status: 401,
    body: { code, reason: reason(text) },
    headers: {
      'www-authenticate': `Bearer realm="sonata"${code === 'invalidCredentials' ? ', error="invalid_token"' : ''}`,
    },
  };
}

/** `404` `Error404`. */
export function error404(text: string): SellerAnswer {
  return { status: 404, body: { code: 'notFound', reason: reason(text) } };
}

/** `422`: a **list** of `Error422` (POQ and Quote `createX` operations). */
export function error422(problems: ItemProblem[]): SellerAnswer {
  return {
    status: 422,
    body: problems.map((problem) => ({
      code: problem.code,
      propertyPath: problem.propertyPath,
      reason: reason(problem.reason),
    })),
  };
}

/** `500`, or `503` with the same `Error500` body (the documents list no 503; see docs/mef-sonata-mapping.md). */
export function error5xx(status: 500 | 503, retryAfter: string | null): SellerAnswer {
  return {
    status,
    body: {
      code: 'internalError',
      reason:
        status === 503
          ? 'The seller is temporarily unavailable.'
          : 'The seller failed to process the request.',
    },
    headers: retryAfter ? { 'retry-after': retryAfter } : {},
  };
}

/**
 * `429` with `Retry-After` (RFC 6585 §4). These document versions define no `Error429`; the body is the common
 * `Error` with the code later MEF releases use, `tooManyRequests`.
 */
export function error429(text: string, retryAfterSeconds: number): SellerAnswer {
  return {
    status: 429,
    body: { code: 'tooManyRequests', reason: reason(text) },
    headers: { 'retry-after': String(retryAfterSeconds) },
  };
}

/** `501` `Error501` `notImplemented` (POQ and Quote `/hub` when the seller sends no notifications). */
export function error501(text: string): SellerAnswer {
  return { status: 501, body: { code: 'notImplemented', reason: reason(text) } };
}

/** An `ItemProblem` as a `TerminationError` (`code`, `propertyPath`, `value`). */
export function terminationError(problem: ItemProblem): {
  code: string;
  propertyPath: string;
  value: string;
} {
  return { code: problem.code, propertyPath: problem.propertyPath, value: reason(problem.reason) };
}
