import type { Command } from 'commander';
import type { Services } from '../context.js';
import type { SourceRow } from '../db/rows.js';
import { notFound } from '../errors.js';
import { shownSonataSettings } from '../gathering/sources/mef-sonata/index.js';
import { listInstanceSources } from '../resolvers/operator.js';
import { updateSonataSourceInInstance } from '../resolvers/sources.js';
import { type CliOptions, givenSonataSettings, sonataSettingsOptions } from './sonata.js';

/*
 * The operator CLI's `source update-sonata` (docs/mef-sonata.md). `updateSonataSourceInInstance` replaces the
 * settings as a whole; an operator changing one flag should not have to repeat the others, so the flags
 * given override the source's current settings. The client secret never passes through here: left out, the
 * operation keeps the stored one.
 */

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `current` with `given` laid over it, object by object; arrays and other values are replaced whole. */
function overridden(current: unknown, given: unknown): unknown {
  if (!isPlainObject(current) || !isPlainObject(given)) return given;
  const merged = { ...current };
  for (const [key, value] of Object.entries(given)) merged[key] = overridden(current[key], value);
  return merged;
}

/**
 * The current settings of a source without the client secret, as `sonataSourceSettingsSchema` reads them;
 * empty for another type of source (the update refuses it) or settings that no longer parse.
 */
function currentSettings(source: SourceRow): Record<string, unknown> {
  const shown = shownSonataSettings(source);
  if (!shown) return {};
  const { hasClientSecret: _shown, ...oauth2 } = shown.oauth2;
  return { ...shown, oauth2 };
}

/**
 * Replaces the Sonata settings of a `mef-sonata` source of an instance with its current ones overridden by
 * the flags given (see above); `--client-secret` replaces the stored secret, else it is kept.
 * @param options `instance` (id or code), `source` (id or key in the instance) and the settings flags.
 * @throws {AppError} `NOT_FOUND` for an unknown instance or source; otherwise as
 *   `updateSonataSourceInInstance` (`VALIDATION` with path `/id` for another type of source, paths below
 *   `/sonata` for invalid settings).
 */
export async function updateSonataSourceByOptions(
  services: Services,
  options: CliOptions,
): Promise<SourceRow> {
  const instance = options.instance as string;
  const wanted = options.source as string;
  const found = (await listInstanceSources(services, instance)).find(
    (row) => row.id === wanted || row.key === wanted,
  );
  if (!found) throw notFound('Source', wanted);
  const sonata = overridden(currentSettings(found), givenSonataSettings(options));
  return updateSonataSourceInInstance(services, found.instanceId, found.id, sonata);
}

/**
 * Adds `update-sonata` to the CLI's `source` command; `update` runs the given update with the services and
 * prints the source it returns.
 */
export function updateSonataCommand(
  source: Command,
  update: (run: (services: Services) => Promise<SourceRow>) => Promise<void>,
): void {
  const command = source
    .command('update-sonata')
    .description(
      'Change the settings of a mef-sonata source (docs/mef-sonata.md): flags not given keep their current ' +
        'value, the client secret is kept unless --client-secret is given; never printed',
    )
    .requiredOption('--instance <id-or-code>', 'the instance')
    .requiredOption('--source <id-or-key>', 'the source id (src_…) or its key in the instance');
  sonataSettingsOptions(command, false).action((options: CliOptions) =>
    update((services) => updateSonataSourceByOptions(services, options)),
  );
}
