import type { SourceRow } from '../../../db/rows.js';
import { defaultPolicySettings, type PolicySettings, SourcePolicies } from '../policies.js';
import type { sendToSupplier } from '../supplier-http.js';
import {
  type SourceAdapter,
  type SourceAnswer,
  SourceError,
  type SourceOffer,
  type SourceQuery,
} from '../types.js';
import { type SonataCallScope, SonataClient } from './client.js';
import { withoutSecret } from './errors.js';
import { gatherFromSeller, type SonataGathering } from './gather.js';
import { deleteHubListeners, memoryHubRegistrations, SonataHub, type SonataHubRegistrations } from './hub.js';
import type { SonataNotificationInbox } from './inbox.js';
import { emptyGatheringError, partlyDeclinedNote } from './outcome.js';
import { installPlace } from './requests.js';
import { type SonataSourceSettings, sonataSourceSettingsSchema } from './settings.js';
import { SonataTokenCache } from './token.js';

/** Collaborators and settings of {@link createMefSonataSource}. */
export interface MefSonataSourceOptions {
  now: () => Date;
  /**
   * The source's Sonata settings (stored with the source, the client secret server-side).
   * @throws anything when the source has none: the query then fails with `NOT_CONFIGURED`.
   */
  settingsOf: (source: SourceRow) => SonataSourceSettings;
  /** The hub notification inbox; without one, a source in the `notifications` mode polls instead. */
  notifications?: SonataNotificationInbox;
  /** Where hub registrations are kept (default: in memory). */
  hubRegistrations?: SonataHubRegistrations;
  /** The resilience policy settings (as for the `http` source). */
  policy?: PolicySettings;
  /** The `fetch` of the OAuth2 token endpoint (default: the global one); tests observe token requests with it. */
  fetch?: typeof fetch;
  /** What sends the API calls (default: {@link sendToSupplier}); tests observe the calls with it. */
  send?: typeof sendToSupplier;
}

/** The `mef-sonata` adapter, with what the wiring and tests reach into. */
export interface MefSonataSource extends SourceAdapter {
  readonly type: 'mef-sonata';
  /**
   * Like `fetchOffers`, but returns everything the seller said: offers, declined items, POQ and Quote
   * states. Never throws for declined items; for the failures `fetchOffers` throws, it throws the same.
   */
  gather(query: SourceQuery): Promise<SonataGathering>;
  /**
   * Deletes the source's kept hub listeners at its seller (source disabled, or its settings replaced), with
   * the source's settings as `settingsOf` gives them; works without an inbox.
   */
  unregisterListeners(source: SourceRow, signal?: AbortSignal): Promise<void>;
  readonly policies: SourcePolicies;
  readonly tokens: SonataTokenCache;
}

/**
 * The `mef-sonata` source: a buyer of MEF LSO Sonata — Product Offering Qualification (MEF 87, POQ 7.0.1)
 * for serviceability, then Quote (MEF 115, Quote 8.0.1) for prices — mapped onto offers as
 * docs/mef-sonata-mapping.md says. Per source: OAuth 2.0 client-credentials tokens (cached), the `http`
 * source's resilience policy around every call, and the whole query bounded by the source's `timeoutMs`
 * (instant answers, polling and waiting for notifications alike).
 *
 * `fetchOffers` fails (not retried) when the seller answered but nothing became an offer, with the reason
 * as its code (`SONATA_UNABLE_TO_PROVIDE`, `SONATA_NOT_SERVICEABLE`, `SONATA_NO_PRICE`, …; see
 * `sonataErrorCodes`); a partly answered query returns its offers, and {@link MefSonataSource.gather}
 * reports the declined rest (`fetchAnswer` as a `SONATA_PARTLY_DECLINED` note, see `partlyDeclinedNote`). Every failure message is free of the client secret.
 */
export function createMefSonataSource(options: MefSonataSourceOptions): MefSonataSource {
  const policies = new SourcePolicies(options.policy ?? defaultPolicySettings);
  const tokens = new SonataTokenCache({
    now: options.now,
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
  const client = new SonataClient(policies, tokens, options.now, options.send);
  const inbox = options.notifications ?? null;
  const registrations = options.hubRegistrations ?? memoryHubRegistrations();
  const hub = inbox ? new SonataHub(client, inbox, registrations) : null;

  const settingsFor = (source: SourceRow): SonataSourceSettings => {
    try {
      return sonataSourceSettingsSchema.parse(options.settingsOf(source));
    } catch {
      throw new SourceError('NOT_CONFIGURED', 'The source has no valid MEF Sonata settings.', false);
    }
  };

  const scopeFor = (
    source: SourceRow,
    settings: SonataSourceSettings,
    signal: AbortSignal,
  ): SonataCallScope => ({
    source,
    settings,
    deadline: AbortSignal.any([signal, AbortSignal.timeout(source.timeoutMs)]),
    querySignal: signal,
  });

  const gather = async (query: SourceQuery): Promise<SonataGathering> => {
    let secret = '';
    try {
      const settings = settingsFor(query.source);
      secret = settings.oauth2.clientSecret;
      const place = installPlace(query.address);
      if (!place) {
        throw new SourceError(
          'SONATA_NO_LOCATION',
          'The address has neither a street nor exact coordinates to ask the seller about.',
          false,
        );
      }
      const scope = scopeFor(query.source, settings, query.signal);
      const listeners = hub && settings.interaction === 'notifications' ? await hub.listeners(scope) : null;
      return await gatherFromSeller({
        client,
        scope,
        query,
        notifications: inbox && listeners ? { inbox, listeners } : null,
        place,
        now: options.now,
      });
    } catch (error) {
      throw finalError(error, query.signal, secret);
    }
  };

  return {
    type: 'mef-sonata',
    policies,
    tokens,
    gather,
    async fetchOffers(query): Promise<SourceOffer[]> {
      const gathering = await gather(query);
      const failure = emptyGatheringError(gathering);
      if (failure) throw failure;
      return gathering.offers;
    },
    async fetchAnswer(query): Promise<SourceAnswer> {
      const gathering = await gather(query);
      const failure = emptyGatheringError(gathering);
      if (failure) throw failure;
      return { offers: gathering.offers, note: partlyDeclinedNote(gathering) };
    },
    async unregisterListeners(source, signal = new AbortController().signal) {
      const settings = settingsFor(source);
      try {
        await deleteHubListeners(client, registrations, scopeFor(source, settings, signal));
      } catch (error) {
        throw finalError(error, signal, settings.oauth2.clientSecret);
      }
    },
  };
}

/**
 * The error a query ends with: the query's own abort as it is; a source error as final (the policy already
 * retried what was worth retrying) and without the client secret.
 */
function finalError(error: unknown, signal: AbortSignal, secret: string): unknown {
  if (signal.aborted) return signal.reason;
  if (!(error instanceof SourceError)) return error;
  return withoutSecret(new SourceError(error.code, error.message, false), secret);
}
