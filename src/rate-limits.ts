import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';

/** The outcome of one request against the limits, with what the `RateLimit-*` headers report. */
export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the window resets. */
  resetSeconds: number;
}

/** Limits per window: per auth token, per instance, and per client address for unauthenticated calls. */
export interface RateLimitSettings {
  windowSeconds: number;
  perToken: number;
  perInstance: number;
  perAnonymousAddress: number;
}

/**
 * Fixed-window request limits (rate-limiter-flexible, in memory): a token's burst is cut at its own limit,
 * and an instance's at the instance limit, so one tenant's burst never eats another tenant's budget.
 */
export class RateLimits {
  private readonly token: RateLimiterMemory;
  private readonly instance: RateLimiterMemory;
  private readonly anonymous: RateLimiterMemory;

  constructor(private readonly settings: RateLimitSettings) {
    const duration = settings.windowSeconds;
    this.token = new RateLimiterMemory({ keyPrefix: 'token', points: settings.perToken, duration });
    this.instance = new RateLimiterMemory({ keyPrefix: 'instance', points: settings.perInstance, duration });
    this.anonymous = new RateLimiterMemory({
      keyPrefix: 'address',
      points: settings.perAnonymousAddress,
      duration,
    });
  }

  /**
   * Counts one request of an authenticated caller against its token's and its instance's limits.
   * @param tokenKey a hash of the token (never the token itself: it would sit in memory as a key).
   */
  async forCaller(tokenKey: string, instanceId: string): Promise<RateDecision> {
    const byToken = await consume(this.token, tokenKey, this.settings.perToken);
    if (!byToken.allowed) return byToken;
    const byInstance = await consume(this.instance, instanceId, this.settings.perInstance);
    return byInstance.allowed ? byToken : byInstance;
  }

  /** Counts one unauthenticated request (sign-in) against its client address's limit. */
  async forAnonymous(address: string): Promise<RateDecision> {
    return consume(this.anonymous, address, this.settings.perAnonymousAddress);
  }
}

async function consume(limiter: RateLimiterMemory, key: string, limit: number): Promise<RateDecision> {
  try {
    const result = await limiter.consume(key, 1);
    return decision(true, limit, result);
  } catch (rejection) {
    if (rejection instanceof RateLimiterRes) return decision(false, limit, rejection);
    throw rejection;
  }
}

function decision(allowed: boolean, limit: number, result: RateLimiterRes): RateDecision {
  return {
    allowed,
    limit,
    remaining: Math.max(0, result.remainingPoints),
    resetSeconds: Math.max(1, Math.ceil(result.msBeforeNext / 1000)),
  };
}

/**
 * The rate-limit response headers (IETF draft "RateLimit header fields for HTTP": `RateLimit-Limit`,
 * `RateLimit-Remaining`, `RateLimit-Reset`), plus `Retry-After` (RFC 9110) when refused.
 */
export function rateLimitHeaders(decision: RateDecision): Record<string, string> {
  const headers: Record<string, string> = {
    'ratelimit-limit': String(decision.limit),
    'ratelimit-remaining': String(decision.remaining),
    'ratelimit-reset': String(decision.resetSeconds),
  };
  if (!decision.allowed) headers['retry-after'] = String(decision.resetSeconds);
  return headers;
}
