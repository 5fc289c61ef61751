import { randomBytes } from 'node:crypto';
import { type Revocation, Revocations, revocationCodec } from '../auth/revocations.js';
import { type Clock, systemClock } from '../clock.js';
import type { Config } from '../config.js';
import type { Services } from '../context.js';
import { openStore } from '../db/open.js';
import type { Store } from '../db/store.js';
import {
  type AvailabilityRequestEvent,
  CountingEventTarget,
  createEventBus,
  type OrderEvent,
} from '../events.js';
import { createOfflineGeocoder, createPdokGeocoder } from '../geo/index.js';
import { chooseLogFormat, createLogger, type Logger } from '../logger.js';
import { RateLimits } from '../rate-limits.js';
import { openRedisSharedState, type RedisSharedState } from '../redis/shared-state.js';
import { forgetRevokedViewers } from '../resolvers/authentication.js';
import { subscriptionProgress } from '../resolvers/order-events.js';

/**
 * The HS256 key of `secret` (its UTF-8 bytes), imported once: jose would otherwise import a raw key on
 * every signature and verification.
 */
function importSigningKey(secret: string): Promise<CryptoKey> {
  return crypto.subtle.importKey(
    'raw',
    new TextEncoder().encode(secret),
    { name: 'HMAC', hash: 'SHA-256' },
    false,
    ['sign', 'verify'],
  );
}

/**
 * Opens the store `DATABASE_URL` selects (applying migrations) and builds the shared services. The `sse_jwt` signing key is
 * `TOKEN_SIGNING_SECRET` when set, else a random secret generated on first start and kept in the database.
 * With `REDIS_URL`, events and wake-ups go through Redis (`openRedisSharedState`): `wakeGathering` then
 * wakes `options.wakeGathering` at once and every other instance's worker through Redis, and
 * `options.wakeGathering` also runs on the wake-ups of other instances. Revocations are heard from every
 * instance through Redis, or in this process alone without it (`services.revocations`, see
 * `src/auth/revocations.ts`), and drop the viewer cache's entries they cover. Close the Redis connections
 * (which also stops the revocations' listener and checks) with `services.redis?.close()` before
 * `services.db.close()`.
 *
 * @throws Error when Redis does not answer at start (see `openRedisSharedState`).
 */
export async function createServices(
  config: Config,
  options: { clock?: Clock; logger?: Logger; wakeGathering?: () => void } = {},
): Promise<Services> {
  const logger =
    options.logger ??
    createLogger(config.LOG_LEVEL, {
      format: chooseLogFormat({ isTTY: process.stdout.isTTY, nodeEnv: config.NODE_ENV }),
    });
  const db = await openStore(config.DATABASE_URL, {
    poolSize: config.DATABASE_POOL_SIZE,
    logger: logger.child({ component: 'database' }),
  });
  const secret =
    config.TOKEN_SIGNING_SECRET ??
    (await db.getOrCreateSetting('token_signing_secret', randomBytes(48).toString('base64url')));
  const offline = createOfflineGeocoder();
  const redis = config.REDIS_URL
    ? await openRedisSharedState(
        config.REDIS_URL,
        {
          prefix: config.REDIS_KEY_PREFIX,
          historySize: config.MERCURE_HISTORY_SIZE,
          progress: (detail) =>
            subscriptionProgress((detail as Partial<AvailabilityRequestEvent | OrderEvent> | null)?.record),
        },
        logger,
      ).catch(async (error) => {
        await db.close();
        throw error;
      })
    : null;
  const wakeLocal = options.wakeGathering ?? (() => {});
  if (redis && options.wakeGathering) redis.wakeups.listen(options.wakeGathering);
  const { revocations, shared } = await openRevocations(redis, db, logger).catch(async (error) => {
    await redis?.close();
    await db.close();
    throw error;
  });
  return {
    db,
    config,
    logger,
    rateLimits: new RateLimits(
      {
        windowSeconds: config.RATE_LIMIT_WINDOW_SECONDS,
        perToken: config.RATE_LIMIT_PER_TOKEN,
        perInstance: config.RATE_LIMIT_PER_INSTANCE,
        perAnonymousAddress: config.RATE_LIMIT_PER_ANONYMOUS_ADDRESS,
      },
      redis ? { redis: redis.commands, prefix: config.REDIS_KEY_PREFIX, logger } : null,
    ),
    geocoder:
      config.GEOCODER === 'pdok' && config.PDOK_LOCATIESERVER_URL
        ? createPdokGeocoder({ baseUrl: config.PDOK_LOCATIESERVER_URL, fallback: offline, logger })
        : offline,
    clock: options.clock ?? systemClock,
    events: createEventBus(redis?.events ?? new CountingEventTarget(config.MERCURE_HISTORY_SIZE)),
    signingKey: await importSigningKey(secret),
    wakeGathering: redis
      ? () => {
          wakeLocal();
          redis.wakeups.publish();
        }
      : wakeLocal,
    redis: shared,
    revocations,
  };
}

/** How long to wait for Redis to confirm the revocations' channel at start, in ms. */
const REVOCATIONS_READY_TIMEOUT_MS = 10_000;

/**
 * The process's {@link Revocations}: on the `revocations` channel of `redis` when given (resolving once
 * Redis confirmed the subscription, and re-checking everything when the commands connection comes back
 * after a loss), dropping the viewer cache's entries of `db` they cover. Returns `redis` with a `close()`
 * that also stops the revocations, so whoever closes the services' Redis stops them too.
 *
 * @throws Error when Redis does not confirm the channel within {@link REVOCATIONS_READY_TIMEOUT_MS}.
 */
async function openRevocations(
  redis: RedisSharedState | null,
  db: Store,
  logger: Logger,
): Promise<{ revocations: Revocations; shared: RedisSharedState | null }> {
  const broadcast = redis?.broadcast<Revocation>('revocations', revocationCodec, 'revocation') ?? null;
  const revocations = new Revocations({
    broadcast,
    findRevokedTokens: (tokenIds) => db.findRevokedTokens(tokenIds),
    logger: logger.child({ component: 'revocations' }),
  });
  revocations.listen((revocation) => forgetRevokedViewers(db, revocation));
  revocations.onResync(() => forgetRevokedViewers(db, null));
  if (!redis || !broadcast) return { revocations, shared: null };
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      broadcast.ready,
      new Promise((_, reject) => {
        timer = setTimeout(
          () => reject(new Error('Redis at REDIS_URL did not confirm the revocations channel in time')),
          REVOCATIONS_READY_TIMEOUT_MS,
        );
      }),
    ]);
  } catch (error) {
    revocations.close();
    throw error;
  } finally {
    clearTimeout(timer);
  }
  // Registered after the first connection: 'ready' now means the connection came back after a loss.
  const onReconnect = () => {
    void revocations.resync();
  };
  redis.commands.on('ready', onReconnect);
  const shared: RedisSharedState = {
    ...redis,
    close: async () => {
      redis.commands.off('ready', onReconnect);
      revocations.close();
      await redis.close();
    },
  };
  return { revocations, shared };
}

/**
 * The key of the MEF Sonata notification callbacks' tokens (see `SonataNotificationInbox`): 32 random bytes
 * generated on first start and kept in the database, like the `sse_jwt` key, so every instance and every
 * restart issues and checks the same callback tokens.
 */
export function sonataCallbackSecret(db: Store): Promise<string> {
  return db.getOrCreateSetting('sonata_callback_secret', randomBytes(32).toString('base64url'));
}
