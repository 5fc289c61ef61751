import { z } from 'zod';
import type { Context, Services } from '../context.js';
import type { NewSource, SourceRow } from '../db/rows.js';
import { AppError, notFound } from '../errors.js';
import {
  createMefSonataSource,
  memoryHubRegistrations,
  type SonataHubRegistrations,
  sonataSourceColumns,
  sonataSourceSettingsSchema,
  storedHubRegistrations,
  storedSonataSettings,
} from '../gathering/sources/mef-sonata/index.js';
import { requireViewer } from './authentication.js';
import { countryCodeSchema } from './availability-options.js';
import { parseInput } from './validation.js';

/** What every registered source has, whatever its type. */
const sourceFields = {
  key: z.string().regex(/^[a-z0-9]+(?:-[a-z0-9]+)*$/, 'must be lowercase kebab-case, e.g. kpn-weas'),
  name: z.string().trim().min(1).max(100),
  network: z.string().trim().min(1).max(100),
  countryCodes: z.array(countryCodeSchema).min(1).max(50),
  timeoutMs: z.number().int().min(100).max(120_000).default(10_000),
  concurrency: z.number().int().min(1).max(256).default(4),
  enabled: z.boolean().default(true),
};

/** An `http` supplier source to register (GraphQL `RegisterSourceInput`, the CLI). */
export const sourceInputSchema = z.strictObject({
  ...sourceFields,
  endpointUrl: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).max(2048),
  credentials: z
    .string()
    .min(1)
    .max(4096)
    .nullish()
    .transform((value) => value ?? null),
});

/**
 * A `mef-sonata` seller to register (GraphQL `RegisterSonataSourceInput`, the CLI's `source add-sonata`):
 * the common fields and `sonata`, the adapter's settings (`sonataSourceSettingsSchema`, docs/mef-sonata.md).
 */
export const sonataSourceInputSchema = z.strictObject({
  ...sourceFields,
  sonata: sonataSourceSettingsSchema,
});

/** Whether a registration names the `mef-sonata` type (the CLI's way; GraphQL has its own mutation). */
function namesSonata(input: unknown): input is { type: 'mef-sonata' } {
  return typeof input === 'object' && input !== null && (input as { type?: unknown }).type === 'mef-sonata';
}

/** The row to insert for a registration: an `http` source, or (with `type: 'mef-sonata'`) a Sonata seller. */
function newSource(input: unknown): NewSource {
  if (!namesSonata(input)) {
    return { ...parseInput(sourceInputSchema, input, 'The source is invalid.'), type: 'http' };
  }
  const { type: _type, ...rest } = input;
  const { sonata, ...source } = parseInput(sonataSourceInputSchema, rest, 'The source is invalid.');
  return { ...source, ...sonataSourceColumns(sonata), type: 'mef-sonata' };
}

/**
 * Registers a source in an instance: an `http` supplier, or — when `input.type` is `mef-sonata` — a MEF
 * LSO Sonata seller ({@link sonataSourceInputSchema}). Credentials (the bearer credential, the OAuth2
 * client secret) are stored server-side and never returned.
 * @throws {AppError} `VALIDATION` with a problem per field (`/sonata/oauth2/tokenUrl`, …); `CONFLICT` when
 *   the key is taken in the instance.
 */
export async function registerSourceInInstance(
  services: Services,
  instanceId: string,
  input: unknown,
): Promise<SourceRow> {
  const source = newSource(input);
  const existing = await services.db.listSources(instanceId);
  if (existing.some((row) => row.key === source.key))
    throw new AppError('CONFLICT', `A source with key ${source.key} exists already.`);
  return services.db.insertSource(instanceId, source, services.clock.now());
}

/**
 * Enables or disables a source of an instance; the options' networks follow the enabled sources.
 * Disabling a `mef-sonata` source deletes its hub listeners at its seller first (see
 * {@link releaseHubListeners}); enabling it again registers them at its next query.
 * @throws {AppError} `NOT_FOUND` for a source that is not the instance's.
 */
export async function setSourceEnabledInInstance(
  services: Services,
  instanceId: string,
  id: string,
  enabled: boolean,
): Promise<SourceRow> {
  const row = await services.db.setSourceEnabled(instanceId, id, enabled, services.clock.now());
  if (!row) throw notFound('Source', id);
  if (!enabled && row.hubListeners) {
    await releaseHubListeners(services, row, storedHubRegistrations(services.db));
  }
  return row;
}

/**
 * Replaces the Sonata settings of a `mef-sonata` source (`sonataSourceSettingsSchema`; an
 * `oauth2.clientSecret` left out keeps the stored one). Its hub listeners, registered for the settings
 * before, are forgotten in the same write and deleted at the old seller with the old settings, so a source
 * that leaves the notifications mode (or moves to another seller) leaves no listener behind; in the
 * notifications mode its next query registers again.
 * @throws {AppError} `NOT_FOUND` for a source that is not the instance's; `VALIDATION` for a source of
 *   another type (path `/id`) or invalid settings (paths below `/sonata`).
 */
export async function updateSonataSourceInInstance(
  services: Services,
  instanceId: string,
  id: string,
  input: unknown,
): Promise<SourceRow> {
  const current = (await services.db.listSources(instanceId)).find((row) => row.id === id);
  if (!current) throw notFound('Source', id);
  if (current.type !== 'mef-sonata') {
    throw new AppError('VALIDATION', 'The source is invalid.', [
      { path: '/id', message: `is not a mef-sonata source (its type is ${current.type})` },
    ]);
  }
  const keepsSecret = current.credentials ?? '';
  const withSecret = (sonata: unknown) => {
    if (typeof sonata !== 'object' || sonata === null) return sonata;
    const oauth2 = (sonata as { oauth2?: unknown }).oauth2;
    if (typeof oauth2 !== 'object' || oauth2 === null || 'clientSecret' in oauth2) return sonata;
    return { ...sonata, oauth2: { ...oauth2, clientSecret: keepsSecret } };
  };
  const { sonata } = parseInput(
    z.strictObject({ sonata: sonataSourceSettingsSchema }),
    { sonata: withSecret(input) },
    'The source is invalid.',
  );
  const replaced = await services.db.replaceSourceSettings(
    instanceId,
    id,
    sonataSourceColumns(sonata),
    services.clock.now(),
  );
  if (!replaced) throw notFound('Source', id);
  const { previous, source } = replaced;
  if (previous.hubListeners) {
    const kept = memoryHubRegistrations();
    await kept.set(previous.id, previous.hubListeners);
    await releaseHubListeners(services, previous, kept);
  }
  return source;
}

/**
 * Deletes a `mef-sonata` source's kept hub listeners at its seller, with the settings `source` holds.
 * Bounded by the source's `timeoutMs`; a failure is logged, not thrown: the change stands, and a listener
 * left behind only sends callbacks that change nothing.
 */
async function releaseHubListeners(
  services: Services,
  source: SourceRow,
  registrations: SonataHubRegistrations,
): Promise<void> {
  const adapter = createMefSonataSource({
    now: () => services.clock.now(),
    settingsOf: storedSonataSettings,
    hubRegistrations: registrations,
  });
  try {
    await adapter.unregisterListeners(source);
  } catch (error) {
    services.logger.warn(
      { err: error, sourceId: source.id },
      'could not delete the hub listeners of a mef-sonata source at its seller',
    );
  }
}

/** The caller's instance's sources (instance admins only). */
export async function sources(ctx: Context): Promise<SourceRow[]> {
  const viewer = requireViewer(ctx, ['instance_admin']);
  return ctx.db.listSources(viewer.instanceId);
}

/** Registers an `http` source in the caller's instance (instance admins only). */
export async function registerSource(ctx: Context, input: unknown): Promise<SourceRow> {
  const viewer = requireViewer(ctx, ['instance_admin']);
  return registerSourceInInstance(ctx, viewer.instanceId, input);
}

/** Registers a `mef-sonata` source in the caller's instance (instance admins only). */
export async function registerSonataSource(ctx: Context, input: object): Promise<SourceRow> {
  const viewer = requireViewer(ctx, ['instance_admin']);
  return registerSourceInInstance(ctx, viewer.instanceId, { ...input, type: 'mef-sonata' });
}

/** Replaces the Sonata settings of one of the caller's sources (instance admins only). */
export async function updateSonataSource(ctx: Context, id: string, sonata: unknown): Promise<SourceRow> {
  const viewer = requireViewer(ctx, ['instance_admin']);
  return updateSonataSourceInInstance(ctx, viewer.instanceId, id, sonata);
}

/** Enables or disables one of the caller's sources (instance admins only). */
export async function enableSource(ctx: Context, id: string, enabled: boolean): Promise<SourceRow> {
  const viewer = requireViewer(ctx, ['instance_admin']);
  return setSourceEnabledInInstance(ctx, viewer.instanceId, id, enabled);
}
