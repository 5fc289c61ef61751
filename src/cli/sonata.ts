import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import type { SourceRow } from '../db/rows.js';
import { AppError } from '../errors.js';
import { shownSonataSettings } from '../gathering/sources/mef-sonata/index.js';
import { camelizeBody, snakeKey } from '../rest/keys.js';

/*
 * The operator CLI's `source add-sonata` (docs/mef-sonata.md): a MEF LSO Sonata seller as a `mef-sonata`
 * source. Flags name the settings one by one; the product offerings are JSON in the CLI's snake_case.
 * `source update-sonata` (./sonata-update.ts) takes the same settings flags.
 */

/** Parsed commander options, by camelCase name. */
export type CliOptions = Record<string, string | boolean | undefined>;

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

/** The settings flags: flags, description, and whether registering a seller needs it. */
const settingsOptions: readonly (readonly [flags: string, description: string, needed: boolean])[] = [
  ['--base-url <url>', 'the seller base URL, before /mefApi/sonata/…', true],
  ['--token-url <url>', 'the OAuth2 token endpoint (client credentials)', true],
  ['--client-id <id>', 'the OAuth2 client id', true],
  ['--client-secret <secret>', 'the OAuth2 client secret', true],
  [
    '--offerings <json>',
    'JSON array (or @file) of product offerings: [{"product_offering_id":"…","technology_type":"FIBER",' +
      '"connection_type":"DIA","bandwidths":[{"download":100000,"upload":100000}],"contract_terms":[12,36]}]',
    true,
  ],
  ['--interaction <mode>', 'instant, deferred or notifications', true],
  ['--contact-name <name>', 'buyer contact sent with every POQ and Quote', true],
  ['--contact-email <email>', 'buyer contact e-mail address', true],
  ['--contact-number <number>', 'buyer contact phone number', true],
  ['--contact-organization <name>', 'buyer contact organisation', false],
  ['--scope <scope>', 'OAuth2 scope to ask for', false],
  ['--buyer-id <id>', 'buyerId, when the seller serves several buyers through this client', false],
  ['--seller-id <id>', 'sellerId, when the seller represents several sellers', false],
  ['--poll-initial-ms <ms>', 'first wait between polls of a deferred answer (default on add: 250)', false],
  ['--poll-max-ms <ms>', 'longest wait between polls (default on add: 5000)', false],
  ['--order-poll-initial-ms <ms>', 'first wait before a placed order is read (default on add: 1000)', false],
  [
    '--order-poll-max-ms <ms>',
    'longest wait between reads of a placed order (default on add: 300000)',
    false,
  ],
  [
    '--billing-account-id <id>',
    'billing account named by every order item (default: the buyer id, else the instance code)',
    false,
  ],
];

/**
 * Declares the Sonata settings flags on `command`. With `required` (registering), the settings every
 * seller needs are required options; without (updating), every flag is optional.
 */
export function sonataSettingsOptions(command: Command, required: boolean): Command {
  for (const [flags, description, needed] of settingsOptions) {
    if (required && needed) command.requiredOption(flags, description);
    else command.option(flags, description);
  }
  return command;
}

/** `entries` without the undefined ones, or undefined when none is left. */
function present(entries: Record<string, unknown>): Record<string, unknown> | undefined {
  const kept = Object.entries(entries).filter(([, value]) => value !== undefined);
  return kept.length > 0 ? Object.fromEntries(kept) : undefined;
}

/**
 * The Sonata settings the flags of {@link sonataSettingsOptions} give, as `sonataSourceSettingsSchema`
 * reads them (camelCase); a flag not given is left out, at any depth.
 * @throws {AppError} `VALIDATION` for `--offerings` that is not JSON or names an unreadable file.
 */
export function givenSonataSettings(options: CliOptions): Record<string, unknown> {
  const text = (name: string) => options[name] as string | undefined;
  const number = (name: string) => (options[name] === undefined ? undefined : Number(options[name]));
  const offerings = text('offerings');
  return (
    present({
      baseUrl: text('baseUrl'),
      buyerId: text('buyerId'),
      sellerId: text('sellerId'),
      oauth2: present({
        tokenUrl: text('tokenUrl'),
        clientId: text('clientId'),
        clientSecret: text('clientSecret'),
        scope: text('scope'),
      }),
      buyerContact: present({
        name: text('contactName'),
        emailAddress: text('contactEmail'),
        number: text('contactNumber'),
        organization: text('contactOrganization'),
      }),
      productOfferings:
        offerings === undefined ? undefined : camelizeBody(jsonOrFile('--offerings', offerings)),
      interaction: text('interaction'),
      poll: present({ initialDelayMs: number('pollInitialMs'), maxDelayMs: number('pollMaxMs') }),
      orderPoll: present({
        initialDelayMs: number('orderPollInitialMs'),
        maxDelayMs: number('orderPollMaxMs'),
      }),
      billingAccountId: text('billingAccountId'),
    }) ?? {}
  );
}

/** The registration input of `source add-sonata`'s options (validated by `registerSourceInInstance`). */
function sonataSourceInput(options: CliOptions): object {
  const text = (name: string) => options[name] as string;
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
    sonata: givenSonataSettings(options),
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
  const command = source
    .command('add-sonata')
    .description(
      'Register a MEF LSO Sonata seller (POQ + Quote, docs/mef-sonata.md) as a mef-sonata source; the ' +
        'client secret is stored and never printed',
    )
    .requiredOption('--instance <id-or-code>', 'the instance')
    .requiredOption('--key <key>', 'kebab-case key, unique in the instance')
    .requiredOption('--name <name>', 'display name')
    .requiredOption('--network <network>', 'network name, e.g. Eurofiber');
  sonataSettingsOptions(command, true)
    .option('--countries <codes>', 'comma-separated ISO 3166 alpha-2 codes', 'NL')
    .option('--timeout-ms <ms>', 'time allowed per query (POQ, Quote and waiting)', '10000')
    .option('--concurrency <n>', 'queries in flight at once', '4')
    .option('--disabled', 'register it disabled', false)
    .action((options: CliOptions) => register(options.instance as string, sonataSourceInput(options)));
}
