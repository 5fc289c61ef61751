import type { SourceRow, SourceSettingsUpdate } from '../../../db/rows.js';
import type { Store } from '../../../db/store.js';
import type { SonataHubRegistrations } from './hub.js';
import { redactedSonataSettings, type SonataSourceSettings, sonataSourceSettingsSchema } from './settings.js';

/*
 * How a `mef-sonata` source's settings are kept in the `sources` row: the base URL in `endpoint_url` (shown
 * like an `http` source's endpoint), the OAuth2 client secret in `credentials` (never returned), the rest
 * in the JSON `settings` column; the hub listeners in `hub_listeners`.
 */

/** Splits parsed settings into the columns they are kept in (see above). */
export function sonataSourceColumns(
  settings: SonataSourceSettings,
): SourceSettingsUpdate & { credentials: string } {
  const { baseUrl, oauth2, ...rest } = settings;
  const { clientSecret, ...shown } = oauth2;
  return { endpointUrl: baseUrl, credentials: clientSecret, settings: { ...rest, oauth2: shown } };
}

/** The stored settings, whole again, as they were given (before the schema's defaults and checks). */
function joined(source: SourceRow, clientSecret: string | null): unknown {
  const { oauth2, ...rest } = source.settings ?? {};
  return {
    ...rest,
    baseUrl: source.endpointUrl,
    oauth2: { ...(oauth2 as object | undefined), clientSecret },
  };
}

/**
 * A stored `mef-sonata` source's settings (the adapter's `settingsOf`).
 *
 * @throws {z.ZodError} when the row holds none, or no valid ones (the query then fails `NOT_CONFIGURED`).
 */
export function storedSonataSettings(source: SourceRow): SonataSourceSettings {
  return sonataSourceSettingsSchema.parse(joined(source, source.credentials));
}

/**
 * A source's Sonata settings as an API or the CLI shows them: without the client secret
 * (`oauth2.hasClientSecret` instead; see `redactedSonataSettings`); null for other source types and for
 * settings that do not parse.
 */
export function shownSonataSettings(source: SourceRow): ReturnType<typeof redactedSonataSettings> | null {
  if (source.type !== 'mef-sonata') return null;
  const parsed = sonataSourceSettingsSchema.safeParse(joined(source, source.credentials ?? 'none'));
  if (!parsed.success) return null;
  const shown = redactedSonataSettings(parsed.data);
  return { ...shown, oauth2: { ...shown.oauth2, hasClientSecret: source.credentials !== null } };
}

/**
 * Hub registrations kept in the store (`sources.hub_listeners`): every process of a deployment sees the
 * same, and a restarted worker does not register again.
 */
export function storedHubRegistrations(
  db: Pick<Store, 'getSourceHubListeners' | 'setSourceHubListeners'>,
): SonataHubRegistrations {
  return {
    get: (sourceId) => db.getSourceHubListeners(sourceId),
    set: (sourceId, listeners) => db.setSourceHubListeners(sourceId, listeners),
  };
}
