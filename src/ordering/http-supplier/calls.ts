import type { Dispatcher } from 'undici';
import type { SourceRow } from '../../db/rows.js';
import { parseRetryAfter } from '../../gathering/sources/http.js';
import { policyFailure, type SourcePolicies } from '../../gathering/sources/policies.js';
import { supplierErrorSchema } from '../../gathering/sources/supplier-contract.js';
import { type SupplierResponse, sendToSupplier } from '../../gathering/sources/supplier-http.js';
import { SourceError } from '../../gathering/sources/types.js';

/** What the calls of one step to an `http` supplier are made within. */
export interface HttpSupplierScope {
  source: SourceRow;
  /** The step's signal (the worker stopping, the step's time running out): its abort is passed on as it is. */
  signal: AbortSignal;
}

/** One call of the ordering API: below `<base>`, with what it expects. */
export interface HttpSupplierCall {
  method: Dispatcher.HttpMethod;
  /** Below `<base>`, e.g. `/orders/so-1`. */
  path: string;
  query?: Record<string, string>;
  body?: unknown;
  /** The statuses of a success; any other is a failure. */
  expect: readonly number[];
  /** What the call is, for messages: `order placement`, `order so-1 read`, … */
  what: string;
  /**
   * False: sent once — a timeout or `5xx` is not retried by the policy (it still counts for the breaker); the
   * caller decides what to do (look the order up). Default true.
   */
  retry?: boolean;
}

/**
 * `<base>` of a supplier's ordering API (docs/supplier-contract.md, "Ordering"): the endpoint URL without its
 * last path segment, its query string kept.
 *
 * @throws {TypeError} for an endpoint URL that is not a URL.
 */
export function ordersBaseUrl(endpointUrl: string): URL {
  const url = new URL(endpointUrl);
  url.pathname = url.pathname.replace(/\/+$/, '').replace(/\/[^/]*$/, '');
  return url;
}

const timeout = () => new SourceError('TIMEOUT', 'The supplier did not answer in time.', true);

/** A retryable failure of a call sent with `retry: false`, as a final one for the retry policy. */
class Unretried extends SourceError {
  constructor(readonly original: SourceError) {
    super(original.code, original.message, false, original.retryAfterMs);
  }
}

/**
 * Sends calls of an `http` supplier's ordering API: JSON with the source's bearer credential, through the
 * source's resilience policy (bulkhead, retries of timeouts, `5xx` and `429` honouring `Retry-After`,
 * breaker, the source's `timeoutMs` per call) — the policies of the source's gathering when they are shared.
 * Redirects are not followed and bodies over 2 MiB are cut off.
 */
export class HttpSupplierCalls {
  constructor(
    private readonly policies: SourcePolicies,
    private readonly now: () => Date,
    private readonly sendCall: typeof sendToSupplier = sendToSupplier,
  ) {}

  /**
   * Sends one call and returns its JSON body.
   *
   * @throws {SourceError} `NOT_CONFIGURED` (no endpoint URL), `TIMEOUT`, `UNREACHABLE`, `UPSTREAM_5XX`,
   *   `THROTTLED` (429; the last four retryable), `UPSTREAM_4XX` (with the supplier's `error` in its message),
   *   `REDIRECT`, `RESPONSE_TOO_LARGE`, `MALFORMED_RESPONSE`, `CIRCUIT_OPEN`, `OVERLOADED`; rejects with the
   *   scope signal's reason when it aborts.
   */
  async call(scope: HttpSupplierScope, call: HttpSupplierCall): Promise<unknown> {
    const { source } = scope;
    if (!source.endpointUrl)
      throw new SourceError('NOT_CONFIGURED', 'The source has no endpoint URL.', false);
    let url: URL;
    try {
      url = ordersBaseUrl(source.endpointUrl);
    } catch {
      throw new SourceError('NOT_CONFIGURED', 'The source’s endpoint URL is not a URL.', false);
    }
    url.pathname = `${url.pathname}${call.path}`;
    for (const [name, value] of Object.entries(call.query ?? {})) url.searchParams.set(name, value);
    try {
      return await this.policies.for(source).execute(async ({ signal }) => {
        if (call.retry !== false) return this.send(scope, call, url, signal);
        return this.send(scope, call, url, signal).catch((error: unknown) => {
          throw error instanceof SourceError && error.retryable ? new Unretried(error) : error;
        });
      }, scope.signal);
    } catch (error) {
      if (scope.signal.aborted) throw scope.signal.reason;
      if (error instanceof Unretried) throw error.original;
      throw policyFailure(error);
    }
  }

  private async send(
    scope: HttpSupplierScope,
    call: HttpSupplierCall,
    url: URL,
    signal: AbortSignal,
  ): Promise<unknown> {
    const { source } = scope;
    let response: SupplierResponse;
    try {
      response = await this.sendCall(url, {
        method: call.method,
        signal,
        headers: {
          accept: 'application/json',
          ...(call.body === undefined ? {} : { 'content-type': 'application/json' }),
          ...(source.credentials ? { authorization: `Bearer ${source.credentials}` } : {}),
        },
        ...(call.body === undefined ? {} : { body: JSON.stringify(call.body) }),
      });
    } catch (error) {
      if (scope.signal.aborted) throw error;
      if (signal.aborted) throw timeout();
      throw new SourceError('UNREACHABLE', 'The supplier could not be reached.', true);
    }
    const { status } = response;
    if (status >= 300 && status < 400) {
      await response.discard();
      throw new SourceError(
        'REDIRECT',
        `The supplier answered ${status} to the ${call.what} (redirects are not followed).`,
        false,
      );
    }
    if (status >= 500 || status === 429) {
      await response.discard();
      const retryAfter = parseRetryAfter(response.header('retry-after'), this.now());
      const code = status === 429 ? 'THROTTLED' : 'UPSTREAM_5XX';
      throw new SourceError(code, `The supplier answered ${status} to the ${call.what}.`, true, retryAfter);
    }
    const json = await this.readJson(scope, response, signal, call);
    if (call.expect.includes(status)) return json;
    if (status >= 400) {
      const refusal = supplierErrorSchema.safeParse(json);
      const why = refusal.success ? `: ${refusal.data.error}` : '.';
      throw new SourceError(
        'UPSTREAM_4XX',
        `The supplier answered ${status} to the ${call.what}${why}`,
        false,
      );
    }
    throw new SourceError(
      'INVALID_RESPONSE',
      `The supplier answered ${status} to the ${call.what}, expected ${call.expect.join(' or ')}.`,
      false,
    );
  }

  /** The body as JSON: required of a success; a refusal's body that is not JSON reads as null. */
  private async readJson(
    scope: HttpSupplierScope,
    response: SupplierResponse,
    signal: AbortSignal,
    call: HttpSupplierCall,
  ): Promise<unknown> {
    let text: string;
    try {
      text = await response.text();
    } catch (error) {
      // A supplier that sends its head and then stalls times out like one that never answers.
      if (error instanceof SourceError || scope.signal.aborted) throw error;
      if (signal.aborted) throw timeout();
      throw new SourceError('UNREACHABLE', 'The connection to the supplier broke off.', true);
    }
    try {
      return JSON.parse(text) as unknown;
    } catch {
      if (!call.expect.includes(response.status)) return null;
      throw new SourceError(
        'MALFORMED_RESPONSE',
        `The supplier answered the ${call.what} with malformed JSON.`,
        false,
      );
    }
  }
}
