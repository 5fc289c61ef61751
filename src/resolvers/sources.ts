import { z } from 'zod';
import type { Context, Services } from '../context.js';
import type { SourceRow } from '../db/rows.js';
import { AppError, notFound } from '../errors.js';
import { requireViewer } from './authentication.js';
import { countryCodeSchema } from './availability-options.js';
import { parseInput } from './validation.js';

/** An `http` supplier source to register (GraphQL `RegisterSourceInput`, the CLI). */
export const sourceInputSchema = z.strictObject({
  key: z.string().regex(/^[a-z0-9]+(?:-[a-z0-9]+)*$/, 'must be lowercase kebab-case, e.g. kpn-weas'),
  name: z.string().trim().min(1).max(100),
  network: z.string().trim().min(1).max(100),
  countryCodes: z.array(countryCodeSchema).min(1).max(50),
  endpointUrl: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).max(2048),
  credentials: z
    .string()
    .min(1)
    .max(4096)
    .nullish()
    .transform((value) => value ?? null),
  timeoutMs: z.number().int().min(100).max(120_000).default(10_000),
  concurrency: z.number().int().min(1).max(256).default(4),
  enabled: z.boolean().default(true),
});

/**
 * Registers an `http` source in an instance. Its credentials are stored server-side and never returned.
 * @throws {AppError} `VALIDATION`; `CONFLICT` when the key is taken in the instance.
 */
export async function registerSourceInInstance(
  services: Services,
  instanceId: string,
  input: unknown,
): Promise<SourceRow> {
  const source = parseInput(sourceInputSchema, input, 'The source is invalid.');
  const existing = await services.db.listSources(instanceId);
  if (existing.some((row) => row.key === source.key))
    throw new AppError('CONFLICT', `A source with key ${source.key} exists already.`);
  return services.db.insertSource(instanceId, { ...source, type: 'http' }, services.clock.now());
}

/**
 * Enables or disables a source of an instance; the options' networks follow the enabled sources.
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
  return row;
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

/** Enables or disables one of the caller's sources (instance admins only). */
export async function enableSource(ctx: Context, id: string, enabled: boolean): Promise<SourceRow> {
  const viewer = requireViewer(ctx, ['instance_admin']);
  return setSourceEnabledInInstance(ctx, viewer.instanceId, id, enabled);
}
