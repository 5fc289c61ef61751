import { randomBytes } from 'node:crypto';
import { error401, type SellerAnswer } from './errors.js';

/** The client credentials the simulated sellers accept (RFC 6749 §2.3.1). */
export interface ClientCredentials {
  clientId: string;
  clientSecret: string;
}

/** Default access-token lifetime, seconds. */
export const DEFAULT_TOKEN_SECONDS = 3600;

/**
 * The sellers' OAuth 2.0 authorization server for the client credentials grant (RFC 6749 §4.4): tokens are
 * opaque, bound to the seller (source key) they were issued for, and expire after `expires_in` seconds.
 */
export class TokenIssuer {
  private readonly tokens = new Map<string, { sourceKey: string; expiresAt: number }>();

  constructor(private readonly credentials: ClientCredentials) {}

  /**
   * Answers `POST <token URL>` (form-encoded body). The client authenticates with HTTP Basic or with
   * `client_id`/`client_secret` in the body (§2.3.1). Success (§5.1): `200` `{ access_token, token_type: "Bearer",
   * expires_in }` with `Cache-Control: no-store`. Errors (§5.2): `400` `invalid_request` /
   * `unsupported_grant_type`, `401` `invalid_client` (with a Basic challenge when Basic was used).
   *
   * @param expiresIn lifetime override in seconds (the token URL's `expires_in` knob), else one hour.
   */
  issue(
    sourceKey: string,
    authorization: string | undefined,
    form: string,
    expiresIn: number | null,
  ): SellerAnswer {
    const body = new URLSearchParams(form);
    const noStore = { 'cache-control': 'no-store', pragma: 'no-cache' };
    if (body.get('grant_type') === null) {
      return {
        status: 400,
        body: { error: 'invalid_request', error_description: 'grant_type is required' },
        headers: noStore,
      };
    }
    if (body.get('grant_type') !== 'client_credentials') {
      return { status: 400, body: { error: 'unsupported_grant_type' }, headers: noStore };
    }
    const basic = /^Basic\s+(.+)$/i.exec(authorization ?? '');
    let clientId = body.get('client_id');
    let clientSecret = body.get('client_secret');
    if (basic?.[1]) {
      const decoded = Buffer.from(basic[1], 'base64').toString('utf8');
      const colon = decoded.indexOf(':');
      // RFC 6749 §2.3.1: the id and secret are form-urlencoded before Basic encoding.
      clientId = decodeURIComponent(decoded.slice(0, colon).replace(/\+/g, ' '));
      clientSecret = decodeURIComponent(decoded.slice(colon + 1).replace(/\+/g, ' '));
    }
    if (clientId !== this.credentials.clientId || clientSecret !== this.credentials.clientSecret) {
      return {
        status: 401,
        body: { error: 'invalid_client', error_description: 'unknown client or wrong secret' },
        headers: { ...noStore, ...(basic ? { 'www-authenticate': 'Basic realm="sonata"' } : {}) },
      };
    }
    const seconds = expiresIn ?? DEFAULT_TOKEN_SECONDS;
    const token = randomBytes(24).toString('base64url');
    this.tokens.set(token, { sourceKey, expiresAt: Date.now() + seconds * 1000 });
    return {
      status: 200,
      body: { access_token: token, token_type: 'Bearer', expires_in: seconds },
      headers: noStore,
    };
  }

  /**
   * Checks an API call's `Authorization: Bearer` (RFC 6750 §2.1) for the seller `sourceKey`.
   * @returns null when valid, else the `401` `Error401` answer (`missingCredentials`, `invalidCredentials`).
   */
  check(sourceKey: string, authorization: string | undefined): SellerAnswer | null {
    const bearer = /^Bearer\s+(\S+)$/i.exec(authorization ?? '');
    if (!bearer?.[1]) return error401('missingCredentials', 'A bearer access token is required.');
    const token = this.tokens.get(bearer[1]);
    if (!token || token.sourceKey !== sourceKey || token.expiresAt <= Date.now()) {
      return error401('invalidCredentials', 'The access token is unknown, expired or for another seller.');
    }
    return null;
  }
}
