import type { SourceRow } from '../../../db/rows.js';
import { parseRetryAfter } from '../http.js';
import { policyFailure, type SourcePolicies } from '../policies.js';
import { type SupplierResponse, sendToSupplier } from '../supplier-http.js';
import { SourceError } from '../types.js';
import { clientErrorFor, serverErrorFor } from './errors.js';
import type { SonataSourceSettings } from './settings.js';
import type { SonataTokenCache } from './token.js';

/**
 * The base paths of the Sonata APIs the buyer calls, from the documents' `servers` (MEF 87 POQ Management
 * 7.0.1, MEF 115 Quote Management 8.0.1, MEF 123 Product Order Management 10.0.0, MEF 116 Product
 * Inventory 7.0.2).
 */
export const sonataApiBasePaths = {
  poq: '/mefApi/sonata/productOfferingQualification/v7',
  quote: '/mefApi/sonata/quoteManagement/v8',
  order: '/mefApi/sonata/productOrderingManagement/v10',
  inventory: '/mefApi/sonata/productInventory/v7',
} as const;
/** Which Sonata API a call goes to. */
export type SonataCallApi = keyof typeof sonataApiBasePaths;
/** The APIs gathering asks (POQ and Quote): their hubs, notifications and waits. */
export type SonataApi = Extract<SonataCallApi, 'poq' | 'quote'>;

/** The media type the documents declare for every request and response body. */
export const SONATA_MEDIA_TYPE = 'application/json;charset=utf-8';

/** One call to a seller. */
export interface SonataCall {
  api: SonataCallApi;
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** Below the API's base path, e.g. `/productOfferingQualification/17`. */
  path: string;
  /** Query parameters besides `buyerId`/`sellerId` (e.g. a list's filters). */
  query?: Readonly<Record<string, string>>;
  body?: unknown;
  /** Statuses that are an answer (their JSON body is parsed and returned). */
  expect: readonly number[];
  /** Statuses handed back to the caller as they are, body unread (e.g. 429 to a poll, 501 to `/hub`). */
  tolerate?: readonly number[];
  /** What is asked, for messages ("POQ create"). */
  what: string;
  /**
   * `false`: a failure is never retried by the policy, for a call that must not reach the seller twice
   * (a Product Order create: MEF 123 has no idempotency key). The error keeps its `retryable` flag.
   */
  retry?: boolean;
}

/** A seller's answer: status, parsed JSON body (null for a tolerated status) and its `Retry-After` (ms). */
export interface SonataAnswer {
  status: number;
  body: unknown;
  retryAfterMs: number | null;
}

/** What every call of one query shares. */
export interface SonataCallScope {
  source: SourceRow;
  settings: SonataSourceSettings;
  /** Aborts when the query's signal aborts or the source's `timeoutMs` for the whole query runs out. */
  deadline: AbortSignal;
  /** The query's own signal (the worker stopping): its abort is passed on as it is, not as a TIMEOUT. */
  querySignal: AbortSignal;
}

/**
 * Calls a Sonata seller: JSON over HTTP with a bearer token from the {@link SonataTokenCache}, through the
 * source's resilience policy (bulkhead, retries on timeouts and 5xx honouring `Retry-After`, breaker).
 * Redirects are never followed (a seller that redirects could send the bearer token to another host),
 * bodies over 2 MiB are cut off, and a 401 fetches a fresh token once before it counts as a failure.
 */
export class SonataClient {
  constructor(
    private readonly policies: SourcePolicies,
    private readonly tokens: SonataTokenCache,
    private readonly now: () => Date,
    private readonly sendCall: typeof sendToSupplier = sendToSupplier,
  ) {}

  /**
   * Sends one call.
   *
   * @throws {SourceError} with the codes of `sonataErrorCodes` and the shared ones (`TIMEOUT`, `UNREACHABLE`,
   *   `UPSTREAM_5XX`, `UPSTREAM_4XX`, `REDIRECT`, `RESPONSE_TOO_LARGE`, `MALFORMED_RESPONSE`, `CIRCUIT_OPEN`,
   *   `OVERLOADED`); rejects with the query signal's reason when the query is aborted.
   */
  async call(scope: SonataCallScope, call: SonataCall): Promise<SonataAnswer> {
    try {
      return await this.policies.for(scope.source).execute(async ({ signal }) => {
        if (call.retry !== false) return this.send(scope, call, signal);
        return this.send(scope, call, signal).catch((error: unknown) => {
          throw error instanceof SourceError && error.retryable ? new Unretried(error) : error;
        });
      }, scope.deadline);
    } catch (error) {
      if (scope.querySignal.aborted) throw scope.querySignal.reason;
      if (error instanceof Unretried) throw error.original;
      const failure = policyFailure(error);
      if (failure instanceof SourceError) throw failure;
      if (scope.deadline.aborted) throw timeout();
      throw failure;
    }
  }

  /** The URL of a call: the seller's base URL (its query kept) + the API's base path + the call's path. */
  url(settings: SonataSourceSettings, api: SonataCallApi, path: string): URL {
    const url = new URL(settings.baseUrl);
    url.pathname = `${url.pathname.replace(/\/+$/, '')}${sonataApiBasePaths[api]}${path}`;
    if (settings.buyerId) url.searchParams.set('buyerId', settings.buyerId);
    if (settings.sellerId) url.searchParams.set('sellerId', settings.sellerId);
    return url;
  }

  private async send(scope: SonataCallScope, call: SonataCall, signal: AbortSignal): Promise<SonataAnswer> {
    const { source, settings } = scope;
    const url = this.url(settings, call.api, call.path);
    for (const [name, value] of Object.entries(call.query ?? {})) url.searchParams.set(name, value);
    const freshToken = () =>
      this.tokens.token(source.id, settings.oauth2, source.timeoutMs, signal).catch((error: unknown) => {
        if (!scope.querySignal.aborted && signal.aborted) throw timeout();
        throw error;
      });
    let token = await freshToken();
    let response = await this.sendOnce(scope, call, url, token, signal);
    if (response.status === 401) {
      // A token can be revoked or expire early: one fresh token, then a 401 is the seller's last word.
      await response.discard();
      this.tokens.invalidate(source.id, settings.oauth2, token);
      token = await freshToken();
      response = await this.sendOnce(scope, call, url, token, signal);
    }
    const retryAfterMs = parseRetryAfter(response.header('retry-after'), this.now());
    if (call.tolerate?.includes(response.status)) {
      await response.discard();
      return { status: response.status, body: null, retryAfterMs };
    }
    if (response.status >= 300 && response.status < 400) {
      await response.discard();
      const elsewhere = otherHost(response.header('location'), url) ? ' to another host' : '';
      throw new SourceError(
        'REDIRECT',
        `The seller answered ${response.status}${elsewhere} to the ${call.what} (redirects are not followed).`,
        false,
      );
    }
    // A 204 has no body by definition; every other answer the call expects must be JSON.
    const required = call.expect.includes(response.status) && response.status !== 204;
    const body = await this.readJson(scope, response, signal, required);
    if (call.expect.includes(response.status)) return { status: response.status, body, retryAfterMs };
    if (response.status >= 500) throw serverErrorFor(response.status, body, call.what, retryAfterMs);
    if (response.status >= 400) throw clientErrorFor(response.status, body, call.what);
    throw new SourceError(
      'INVALID_RESPONSE',
      `The seller answered ${response.status} to the ${call.what}, expected ${call.expect.join(' or ')}.`,
      false,
    );
  }

  private async sendOnce(
    scope: SonataCallScope,
    call: SonataCall,
    url: URL,
    token: string,
    signal: AbortSignal,
  ): Promise<SupplierResponse> {
    try {
      return await this.sendCall(url, {
        method: call.method,
        signal,
        headers: {
          accept: 'application/json',
          authorization: `Bearer ${token}`,
          ...(call.body === undefined ? {} : { 'content-type': SONATA_MEDIA_TYPE }),
        },
        ...(call.body === undefined ? {} : { body: JSON.stringify(call.body) }),
      });
    } catch (error) {
      if (scope.querySignal.aborted) throw error;
      if (signal.aborted) throw timeout();
      throw new SourceError('UNREACHABLE', 'The seller could not be reached.', true);
    }
  }

  /**
   * The body as JSON. An answer must be JSON; an error body that is not is read as "no MEF error".
   */
  private async readJson(
    scope: SonataCallScope,
    response: SupplierResponse,
    signal: AbortSignal,
    required: boolean,
  ): Promise<unknown> {
    let text: string;
    try {
      text = await response.text();
    } catch (error) {
      // A seller that sends its head and then stalls times out like one that never answers.
      if (error instanceof SourceError || scope.querySignal.aborted) throw error;
      if (signal.aborted) throw timeout();
      throw new SourceError('UNREACHABLE', 'The connection to the seller broke off.', true);
    }
    if (!required && text.trim() === '') return null;
    try {
      return JSON.parse(text) as unknown;
    } catch {
      if (!required) return null;
      throw new SourceError('MALFORMED_RESPONSE', 'The seller answered with malformed JSON.', false);
    }
  }
}

/**
 * A retryable failure of a call sent with `retry: false`, as a final one: the retry policy lets it pass and
 * the breaker still counts it. `call` hands on the original.
 */
class Unretried extends SourceError {
  constructor(readonly original: SourceError) {
    super(original.code, original.message, false, original.retryAfterMs);
  }
}

/** Whether a redirect's `Location` leaves the called host (an unreadable one counts as leaving). */
function otherHost(location: string | null, from: URL): boolean {
  if (location === null) return false;
  try {
    return new URL(location, from).host !== from.host;
  } catch {
    return true;
  }
}

function timeout(): SourceError {
  return new SourceError('TIMEOUT', 'The source did not answer in time.', true);
}
