/**
 * The auth token a request carries: `X-Auth-Token: <token>` (the contract's service), or
 * `Authorization: Bearer <token>` (RFC 6750). Null when neither is present.
 */
export function authTokenFromHeaders(get: (name: string) => string | null | undefined): string | null {
  const direct = get('x-auth-token')?.trim();
  if (direct) return direct;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(get('authorization') ?? '');
  return match?.[1] ?? null;
}
