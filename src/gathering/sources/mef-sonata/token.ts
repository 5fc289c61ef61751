import { createHash } from 'node:crypto';
import * as oauth from 'oauth4webapi';
import { parseRetryAfter } from '../http.js';
import { readLimitedText } from '../response-body.js';
import { SourceError } from '../types.js';
import type { SonataSourceSettings } from './settings.js';

/** A bearer access token and when this cache stops handing it out. */
interface CachedToken {
  accessToken: string;
  /** Epoch milliseconds: shortly before the token's `expires_in` runs out. */
  useUntil: number;
}

/** Lifetime assumed when a token response has no `expires_in` (RFC 6749 §5.1 only recommends it). */
const DEFAULT_LIFETIME_MS = 60_000;
/** Longest margin before expiry at which a token is renewed. */
const MAX_RENEW_MARGIN_MS = 30_000;

/**
 * OAuth 2.0 client-credentials tokens (RFC 6749 §4.4) for Sonata sources, through `oauth4webapi`. A
 * token is cached per source and credentials until shortly before it expires (`expires_in` less 10 %, at
 * most 30 s), calls that need one at the same time share one token request, and a token the seller
 * refused (401) is dropped with {@link invalidate} so the next call fetches a new one.
 *
 * The client authenticates with `client_secret_basic` (RFC 6749 §2.3.1: every authorization server MUST
 * support it). The secret travels only to the token endpoint and appears in no error.
 */
export class SonataTokenCache {
  private readonly tokens = new Map<string, CachedToken>();
  private readonly pending = new Map<string, Promise<CachedToken>>();

  constructor(private readonly options: { now: () => Date; fetch?: typeof fetch }) {}

  /**
   * A valid access token for the source.
   *
   * @param timeoutMs how long a token request may take.
   * @throws {SourceError} `SONATA_TOKEN_REFUSED` (the endpoint refused the credentials, not retried),
   *   `SONATA_TOKEN_UNAVAILABLE` (5xx or unreachable, retried), `TIMEOUT`, `REDIRECT`,
   *   `RESPONSE_TOO_LARGE` or `INVALID_RESPONSE`; rejects with `signal.reason` once `signal` aborts.
   */
  async token(
    sourceId: string,
    oauth2: SonataSourceSettings['oauth2'],
    timeoutMs: number,
    signal: AbortSignal,
  ): Promise<string> {
    const key = cacheKey(sourceId, oauth2);
    const cached = this.tokens.get(key);
    if (cached && cached.useUntil > this.options.now().getTime()) return cached.accessToken;
    let request = this.pending.get(key);
    if (!request) {
      request = this.request(oauth2, timeoutMs).finally(() => this.pending.delete(key));
      this.pending.set(key, request);
      request.then(
        (token) => this.tokens.set(key, token),
        () => {},
      );
    }
    return (await abortable(request, signal)).accessToken;
  }

  /** Forgets `accessToken` when it is the source's cached one (the seller answered 401 to it). */
  invalidate(sourceId: string, oauth2: SonataSourceSettings['oauth2'], accessToken: string): void {
    const key = cacheKey(sourceId, oauth2);
    if (this.tokens.get(key)?.accessToken === accessToken) this.tokens.delete(key);
  }

  private async request(oauth2: SonataSourceSettings['oauth2'], timeoutMs: number): Promise<CachedToken> {
    const server: oauth.AuthorizationServer = {
      issuer: new URL(oauth2.tokenUrl).origin,
      token_endpoint: oauth2.tokenUrl,
    };
    const client: oauth.Client = { client_id: oauth2.clientId };
    const fetchImpl = this.options.fetch ?? fetch;
    const signal = AbortSignal.timeout(timeoutMs);
    let response: Response;
    try {
      response = await oauth.clientCredentialsGrantRequest(
        server,
        client,
        oauth.ClientSecretBasic(oauth2.clientSecret),
        oauth2.scope ? { scope: oauth2.scope } : {},
        {
          signal,
          // Loopback token endpoints only (the settings refuse plain http elsewhere): the simulator, tests.
          [oauth.allowInsecureRequests]: new URL(oauth2.tokenUrl).protocol === 'http:',
          [oauth.customFetch]: async (url, init) => {
            const answer = await fetchImpl(url, { ...init, redirect: 'manual' });
            // Read within the body limit here, so oauth4webapi never buffers an unbounded answer.
            const text = await readLimitedText(answer);
            const empty = answer.status === 204 || answer.status === 304;
            return new Response(empty ? null : text, { status: answer.status, headers: answer.headers });
          },
        },
      );
    } catch (error) {
      if (error instanceof SourceError) throw error;
      if (signal.aborted)
        throw new SourceError('TIMEOUT', 'The token endpoint did not answer in time.', true);
      throw new SourceError('SONATA_TOKEN_UNAVAILABLE', 'The token endpoint could not be reached.', true);
    }
    if (response.status >= 300 && response.status < 400) {
      throw new SourceError(
        'REDIRECT',
        `The token endpoint answered ${response.status} (redirects are not followed).`,
        false,
      );
    }
    if (response.status >= 500) {
      throw new SourceError(
        'SONATA_TOKEN_UNAVAILABLE',
        `The token endpoint answered ${response.status}.`,
        true,
        parseRetryAfter(response.headers.get('retry-after'), this.options.now()),
      );
    }
    if (response.status >= 400) {
      throw new SourceError(
        'SONATA_TOKEN_REFUSED',
        `The token endpoint refused the client credentials (${response.status}${await oauthError(response)}).`,
        false,
      );
    }
    let result: oauth.TokenEndpointResponse;
    try {
      result = await oauth.processClientCredentialsResponse(server, client, response);
    } catch {
      throw new SourceError(
        'INVALID_RESPONSE',
        'The token endpoint’s answer is not an OAuth 2.0 token response.',
        false,
      );
    }
    if (result.token_type !== 'bearer') {
      throw new SourceError(
        'INVALID_RESPONSE',
        `The token endpoint issued a ${clip(result.token_type)} token; only bearer tokens are supported.`,
        false,
      );
    }
    const lifetimeMs =
      typeof result.expires_in === 'number' && result.expires_in > 0
        ? result.expires_in * 1000
        : DEFAULT_LIFETIME_MS;
    const margin = Math.min(MAX_RENEW_MARGIN_MS, lifetimeMs * 0.1);
    return { accessToken: result.access_token, useUntil: this.options.now().getTime() + lifetimeMs - margin };
  }
}

/** One cache entry per source and credentials: changed settings never reuse the old token. */
function cacheKey(sourceId: string, oauth2: SonataSourceSettings['oauth2']): string {
  const digest = createHash('sha256')
    .update(JSON.stringify([oauth2.tokenUrl, oauth2.clientId, oauth2.clientSecret, oauth2.scope ?? '']))
    .digest('base64url');
  return `${sourceId}:${digest}`;
}

/** ` invalid_client`: the RFC 6749 §5.2 `error` code of an error answer, when it has one. */
async function oauthError(response: Response): Promise<string> {
  try {
    const body = (await response.json()) as { error?: unknown };
    return typeof body.error === 'string' ? ` ${clip(body.error)}` : '';
  } catch {
    return '';
  }
}

function clip(text: string): string {
  return text.replace(/[^\w.:-]/g, '').slice(0, 60);
}

/** `promise`, or the signal's reason as soon as it aborts (the shared token request goes on for others). */
function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}
