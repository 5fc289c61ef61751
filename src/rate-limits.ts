import type { Redis } from 'ioredis';
import {
  type RateLimiterAbstract,
  RateLimiterMemory,
  RateLimiterRedis,
  RateLimiterRes,
} from 'rate-limiter-flexible';
import type { Logger } from './logger.js';

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

/** Where the counters live when instances share them (issue 17): Redis, under `prefix`. */
export interface SharedRateLimitStore {
  redis: Redis;
  prefix: string;
  logger: Logger;
}

/**
 * The in-memory limiter rate-limiter-flexible falls back to when Redis fails (its `insuranceLimiter`): it
 * is only ever asked while Redis is failing, so each use is a store failure to log and count.
 */
class InsuranceLimiter extends RateLimiterMemory {
  constructor(
    options: ConstructorParameters<typeof RateLimiterMemory>[0],
    private readonly onUse: () => void,
  ) {
    super(options);
  }

  override consume(...args: Parameters<RateLimiterMemory['consume']>): Promise<RateLimiterRes> {
    this.onUse();
    return super.consume(...args);
  }
}

/** Logged at most this often while Redis fails, with the number of requests limited in memory since. */
const FAILURE_LOG_INTERVAL_MS = 10_000;

/**
 * Fixed-window request limits (rate-limiter-flexible): a token's burst is cut at its own limit, and an
 * instance's at the instance limit, so one tenant's burst never eats another tenant's budget.
 *
 * In memory by default. With a {@link SharedRateLimitStore} (`REDIS_URL`), the counters are Redis's
 * (`RateLimiterRedis`), so N instances grant the configured limits in total, not N times them. When Redis
 * fails or is not connected, requests are still served: each instance then limits in memory at the full
 * limits (rate-limiter-flexible's insurance limiter), every check answered that way is counted
 * ({@link storeFailures}, `rate_limit_store_failures_total` on `/metrics`; a request makes one or two) and
 * the outage is logged every 10 s while it lasts — never a 500.
 */
export class RateLimits {
  private readonly token: RateLimiterAbstract;
  private readonly instance: RateLimiterAbstract;
  private readonly anonymous: RateLimiterAbstract;
  private failures = 0;
  private failuresLogged = 0;
  private lastFailureLogAt = 0;

  constructor(
    private readonly settings: RateLimitSettings,
    shared: SharedRateLimitStore | null = null,
  ) {
    const duration = settings.windowSeconds;
    const limiter = (keyPrefix: string, points: number): RateLimiterAbstract => {
      if (!shared) return new RateLimiterMemory({ keyPrefix, points, duration });
      return new RateLimiterRedis({
        storeClient: shared.redis,
        keyPrefix: `${shared.prefix}rate:${keyPrefix}`,
        points,
        duration,
        // Fail over at once while Redis is down, instead of waiting in ioredis's offline queue.
        rejectIfRedisNotReady: true,
        insuranceLimiter: new InsuranceLimiter({ keyPrefix, points, duration }, () =>
          this.storeFailed(shared.logger),
        ),
      });
    };
    this.token = limiter('token', settings.perToken);
    this.instance = limiter('instance', settings.perInstance);
    this.anonymous = limiter('address', settings.perAnonymousAddress);
  }

  /** Checks answered in memory because the shared store failed, since start. */
  get storeFailures(): number {
    return this.failures;
  }

  private storeFailed(logger: Logger): void {
    this.failures += 1;
    const now = Date.now();
    if (now - this.lastFailureLogAt < FAILURE_LOG_INTERVAL_MS) return;
    logger.warn(
      { checks: this.failures - this.failuresLogged },
      'rate limits: redis unavailable, limiting in memory per instance',
    );
    this.lastFailureLogAt = now;
    this.failuresLogged = this.failures;
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

async function consume(limiter: RateLimiterAbstract, key: string, limit: number): Promise<RateDecision> {
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
