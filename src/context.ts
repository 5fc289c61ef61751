import type { Revocations } from './auth/revocations.js';
import type { Clock } from './clock.js';
import type { Config } from './config.js';
import type { Store } from './db/store.js';
import type { EventBus } from './events.js';
import type { Geocoder } from './geo/index.js';
import type { Logger } from './logger.js';
import type { RateLimits } from './rate-limits.js';
import type { RedisSharedState } from './redis/shared-state.js';

/** Roles a user of an instance can hold (DESIGN.md, "Auth"; `ordering`: places orders and answers their charges). */
export const roles = ['instance_admin', 'connectivity_check', 'ordering'] as const;
export type Role = (typeof roles)[number];

/** The authenticated caller: one user of one instance, by one auth token of one application. */
export interface Viewer {
  instanceId: string;
  userId: string;
  roles: readonly Role[];
  /** The id (`tok_…`) of the auth token the caller presented: what revoking it, or an `sse_jwt`'s `sid`, names. */
  tokenId: string;
  /** The application (`app_…`) the token was issued to. */
  applicationId: string;
}

/** Long-lived services shared by every request, the worker and the CLI. */
export interface Services {
  db: Store;
  config: Config;
  logger: Logger;
  clock: Clock;
  events: EventBus;
  /** Locates addresses (offline at city precision, or PDOK for Dutch addresses). */
  geocoder: Geocoder;
  /** Request limits per token, instance and anonymous client address. */
  rateLimits: RateLimits;
  /** HS256 key for the `sse_jwt`, imported once (see `createServices`). */
  signingKey: CryptoKey;
  /**
   * Tells the gathering workers that new tasks are waiting: this process's worker, and with Redis every
   * instance's (no-op where no worker runs, e.g. the CLI).
   */
  wakeGathering(): void;
  /** What instances share through Redis (`REDIS_URL`), or null in the embedded default. */
  redis: RedisSharedState | null;
  /**
   * Revoked tokens and disabled applications, as this process hears of them (through Redis from every
   * process in the shared mode), and the open sessions they end (`src/auth/revocations.ts`).
   */
  revocations: Revocations;
}

/**
 * Which part of a subscription's stream to produce when subscribers share one execution
 * (see `src/server/shared-subscriptions.ts`): `snapshot` — only the current states sent first, then end;
 * `live` — only the changes from now on. Without it, a subscription produces both.
 */
export type SubscriptionPhase = 'snapshot' | 'live';

/** What every domain operation receives: the services plus the caller, when authenticated. */
export interface Context extends Services {
  viewer: Viewer | null;
  /** Set only on the contexts of shared subscriptions (see {@link SubscriptionPhase}). */
  subscriptionPhase?: SubscriptionPhase;
}

/** The one way to build a {@link Context}, for HTTP, WebSocket, REST, the worker and tests. */
export function createContext(services: Services, viewer: Viewer | null): Context {
  // Listed, not spread: V8 gives `{ ...services, viewer }` a hidden class of its own per call, so every
  // context would be a new shape to the code reading it.
  return {
    db: services.db,
    config: services.config,
    logger: services.logger,
    clock: services.clock,
    events: services.events,
    geocoder: services.geocoder,
    rateLimits: services.rateLimits,
    signingKey: services.signingKey,
    wakeGathering: services.wakeGathering,
    redis: services.redis,
    revocations: services.revocations,
    viewer,
  };
}
