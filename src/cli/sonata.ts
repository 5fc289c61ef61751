import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import type { SourceRow } from '../db/rows.js';
import { AppError } from '../errors.js';
import { shownSonataSettings } from '../gathering/sources/mef-sonata/index.js';
import { camelizeBody, snakeKey } from '../rest/keys.js';

/*
 * The operator CLI's `source add-sonata` (docs/mef-sonata.md): a MEF LSO Sonata seller as a `mef-sonata`
 * source. Flags name the settings one by one; the product offerings are JSON in the CLI's snake_case.
 */

/** Every object key in snake_case, at any depth. */
function snakeKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(snakeKeys);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).map(([key, inner]) => [snakeKey(key), snakeKeys(inner)]));
}

/** `{ sonata }` — a `mef-sonata` source's settings as the CLI prints them, never the secret — or nothing. */
export function sonataOutput(source: SourceRow): { sonata?: unknown } {
  const sonata = shownSonataSettings(source);
  return sonata ? { sonata: snakeKeys(sonata) } : {};
}

/** A JSON option's value, or with `@<path>` the file's. @throws {AppError} `VALIDATION` naming the option. */
function jsonOrFile(option: string, value: string): unknown {
  let text = value;
  if (value.startsWith('@')) {
    try {
      text = readFileSync(value.slice(1), 'utf8');
    } catch (error) {
      throw new AppError(
        'VALIDATION',
        `${option}: cannot read ${value.slice(1)}: ${(error as Error).message}`,
      );
    }
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new AppError('VALIDATION', `${option} is not valid JSON: ${(error as Error).message}`);
  }
}

/** The registration input of `source add-sonata`'s options (validated by `registerSourceInInstance`). */
function sonataSourceInput(options: Record<string, string | boolean | undefined>): object {
  const text = (name: string) => options[name] as string;
  const optional = (key: string, name: string) =>
    options[name] === undefined ? {} : { [key]: options[name] as string };
  const number = (key: string, name: string) =>
    options[name] === undefined ? {} : { [key]: Number(options[name]) };
  return {
    type: 'mef-sonata',
    key: text('key'),
    name: text('name'),
    network: text('network'),
    countryCodes: text('countries')
      .split(',')
      .map((code) => code.trim()),
    timeoutMs: Number(options.timeoutMs),
    concurrency: Number(options.concurrency),
    enabled: !options.disabled,
    sonata: {
      baseUrl: text('baseUrl'),
      ...optional('buyerId', 'buyerId'),
      ...optional('sellerId', 'sellerId'),
      oauth2: {
        tokenUrl: text('tokenUrl'),
        clientId: text('clientId'),
        clientSecret: text('clientSecret'),
        ...optional('scope', 'scope'),
      },
      buyerContact: {
        name: text('contactName'),
        emailAddress: text('contactEmail'),
        number: text('contactNumber'),
        ...optional('organization', 'contactOrganization'),
      },
      productOfferings: camelizeBody(jsonOrFile('--offerings', text('offerings'))),
      interaction: text('interaction'),
      poll: { ...number('initialDelayMs', 'pollInitialMs'), ...number('maxDelayMs', 'pollMaxMs') },
    },
  };
}

/**
 * Adds `add-sonata` to the CLI's `source` command; `register` registers the input in the instance and
 * prints the source.
 */
export function addSonataCommand(
  source: Command,
  register: (instance: string, input: object) => Promise<void>,
): void {
  source
    .command('add-sonata')
    .description(
      'Register a MEF LSO Sonata seller (POQ + Quote, docs/mef-sonata.md) as a mef-sonata source; the ' +
        'client secret is stored and never printed',
    )
    .requiredOption('--instance <id-or-code>', 'the instance')
    .requiredOption('--key <key>', 'kebab-case key, unique in the instance')
    .requiredOption('--name <name>', 'display name')
    .requiredOption('--network <network>', 'network name, e.g. Eurofiber')
    .requiredOption('--base-url <url>', 'the seller base URL, before /mefApi/sonata/…')
    .requiredOption('--token-url <url>', 'the OAuth2 token endpoint (client credentials)')
    .requiredOption('--client-id <id>', 'the OAuth2 client id')
    .requiredOption('--client-secret <secret>', 'the OAuth2 client secret')
    .requiredOption(
      '--offerings <json>',
      'JSON array (or @file) of product offerings: [{"product_offering_id":"…","technology_type":"FIBER",' +
        '"connection_type":"DIA","bandwidths":[{"download":100000,"upload":100000}],"contract_terms":[12,36]}]',
    )
    .requiredOption('--interaction <mode>', 'instant, deferred or notifications')
    .requiredOption('--contact-name <name>', 'buyer contact sent with every POQ and Quote')
    .requiredOption('--contact-email <email>', 'buyer contact e-mail address')
    .requiredOption('--contact-number <number>', 'buyer contact phone number')
    .option('--contact-organization <name>', 'buyer contact organisation')
    .option('--scope <scope>', 'OAuth2 scope to ask for')
    .option('--buyer-id <id>', 'buyerId, when the seller serves several buyers through this client')
    .option('--seller-id <id>', 'sellerId, when the seller represents several sellers')
    .option('--poll-initial-ms <ms>', 'first wait between polls of a deferred answer (default 250)')
    .option('--poll-max-ms <ms>', 'longest wait between polls (default 5000)')
    .option('--countries <codes>', 'comma-separated ISO 3166 alpha-2 codes', 'NL')
    .option('--timeout-ms <ms>', 'time allowed per query (POQ, Quote and waiting)', '10000')
    .option('--concurrency <n>', 'queries in flight at once', '4')
    .option('--disabled', 'register it disabled', false)
    .action((options: Record<string, string | boolean | undefined>) =>
      register(options.instance as string, sonataSourceInput(options)),
    );
}
