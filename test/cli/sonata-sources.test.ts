import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type Json,
  startTestServer,
  type TestServer,
  type TestTenant,
  tempDatabasePath,
} from '../helpers/app.js';
import { runCli } from '../helpers/cli.js';
import { storedRows } from '../helpers/store.js';

/*
 * `source add-sonata` and `source update-sonata` (issue 18, item 3): a MEF LSO Sonata seller registered and
 * changed by an operator, on the same database as a running service. The client secret is stored, never
 * printed.
 */

const secret = 'sonata-client-secret-7c2e1b';
const offerings = [
  {
    product_offering_id: 'basic-internet-access-fiber-dia',
    technology_type: 'FIBER',
    connection_type: 'DIA',
    bandwidths: [{ download: 100_000, upload: 100_000 }],
    contract_terms: [12, 36],
  },
];

const database = tempDatabasePath();
const dir = mkdtempSync(join(tmpdir(), 'gateway-cli-sonata-'));
let server: TestServer;
let admin: TestTenant;

beforeAll(async () => {
  server = await startTestServer({ databasePath: database.path, startWorker: false });
  admin = await server.tenant({ code: 'SON', demoCatalog: false, roles: ['instance_admin'] });
});
afterAll(async () => {
  await server.close();
  database.remove();
  rmSync(dir, { recursive: true, force: true });
});

/** `source add-sonata` for the instance SON with `extra` options after the required ones. */
function addSonata(overrides: Record<string, string>, extra: string[] = []) {
  const options: Record<string, string> = {
    '--instance': 'SON',
    '--key': 'eurofiber-sonata',
    '--name': 'Eurofiber (Sonata)',
    '--network': 'Eurofiber',
    '--base-url': 'http://127.0.0.1:4100/sonata/eurofiber/notify',
    '--token-url': 'http://127.0.0.1:4100/sonata/eurofiber/oauth2/token',
    '--client-id': 'connectivity-gateway',
    '--client-secret': secret,
    '--offerings': JSON.stringify(offerings),
    '--interaction': 'notifications',
    '--contact-name': 'Gateway operations',
    '--contact-email': 'noc@gateway.example',
    '--contact-number': '+31 20 555 0100',
    ...overrides,
  };
  return runCli(database.path, ['source', 'add-sonata', ...Object.entries(options).flat(), ...extra]);
}

/**
 * The eurofiber-sonata source as the CLI prints it after the first test added it (`--seller-id
 * eurofiber-nl --poll-max-ms 2000`, the notifications mode), with `id` and the `sonata` fields given.
 */
function printedSource(id: unknown, sonata: Record<string, unknown>) {
  return {
    id,
    key: 'eurofiber-sonata',
    name: 'Eurofiber (Sonata)',
    network: 'Eurofiber',
    type: 'mef-sonata',
    country_codes: ['NL'],
    enabled: true,
    endpoint_url: 'http://127.0.0.1:4100/sonata/eurofiber/notify',
    has_credentials: true,
    timeout_ms: 10_000,
    concurrency: 4,
    sonata: {
      base_url: 'http://127.0.0.1:4100/sonata/eurofiber/notify',
      seller_id: 'eurofiber-nl',
      oauth2: {
        token_url: 'http://127.0.0.1:4100/sonata/eurofiber/oauth2/token',
        client_id: 'connectivity-gateway',
        has_client_secret: true,
      },
      buyer_contact: {
        name: 'Gateway operations',
        email_address: 'noc@gateway.example',
        number: '+31 20 555 0100',
      },
      product_offerings: offerings,
      interaction: 'notifications',
      poll: { initial_delay_ms: 250, max_delay_ms: 2000 },
      order_poll: { initial_delay_ms: 1000, max_delay_ms: 300_000 },
      ...sonata,
    },
  };
}

// Each CLI run starts a fresh Node process (about 2 s).
describe('source add-sonata', { timeout: 60_000 }, () => {
  it('when a Sonata seller is added with its offerings from a file, then it prints the source and its settings, never the secret', async () => {
    const file = join(dir, 'offerings.json');
    writeFileSync(file, JSON.stringify(offerings));

    const result = await addSonata({ '--offerings': `@${file}` }, [
      '--seller-id',
      'eurofiber-nl',
      '--poll-max-ms',
      '2000',
    ]);

    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const printed = JSON.parse(result.stdout);
    expect(printed).toEqual(printedSource(expect.stringMatching(/^src_[0-9a-z]{26}$/), {}));
    expect(result.stdout).not.toContain(secret);
    const served = await admin.api.graphql('{ sources { id type hasCredentials sonata { interaction } } }');
    expect(served.data.sources).toEqual([
      { id: printed.id, type: 'mef-sonata', hasCredentials: true, sonata: { interaction: 'NOTIFICATIONS' } },
    ]);
  });

  it('when the settings are invalid, then it exits 1 naming each option’s field in snake_case and adds nothing', async () => {
    const result = await addSonata({
      '--key': 'broken-sonata',
      '--base-url': 'http://sonata.carrier.example',
      '--interaction': 'sometimes',
      '--offerings': JSON.stringify([{ ...offerings[0], contract_terms: [], bandwith: [] }]),
    });

    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(JSON.parse(result.stderr)).toEqual({
      error: 'VALIDATION',
      message: 'The source is invalid.',
      problems: [
        { path: '/sonata/base_url', message: 'must be an https URL (plain http only to a loopback host)' },
        {
          path: '/sonata/product_offerings/0/contract_terms',
          message: 'Too small: expected array to have >=1 items',
        },
        { path: '/sonata/product_offerings/0/bandwith', message: 'is not a known field' },
        {
          path: '/sonata/interaction',
          message: 'Invalid option: expected one of "instant"|"deferred"|"notifications"',
        },
      ],
    });
    const listed = await runCli(database.path, ['source', 'list', '--instance', 'SON']);
    expect(JSON.parse(listed.stdout).map((source: { key: string }) => source.key)).toEqual([
      'eurofiber-sonata',
    ]);
  });
});

/** `source update-sonata` for the instance SON. */
function updateSonata(options: string[]) {
  return runCli(database.path, ['source', 'update-sonata', '--instance', 'SON', ...options]);
}

/** The stored row of the instance's source `key`. */
async function storedSource(key: string): Promise<Json> {
  const [row] = await storedRows(server.app.services.db, 'sources', { instanceId: admin.instanceId, key });
  return row;
}

describe('source update-sonata', { timeout: 60_000 }, () => {
  const fiberWba = {
    product_offering_id: 'basic-internet-access-fiber-wba',
    technology_type: 'FIBER',
    connection_type: 'WBA',
    bandwidths: [{ download: 500_000, upload: 500_000 }],
    contract_terms: [24],
  };

  it('when the interaction and offerings are given for a source named by key, then only they change and the secret is kept', async () => {
    const before = await storedSource('eurofiber-sonata');

    const result = await updateSonata([
      '--source',
      'eurofiber-sonata',
      '--interaction',
      'deferred',
      '--offerings',
      JSON.stringify([fiberWba]),
    ]);

    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual(
      printedSource(before.id, { product_offerings: [fiberWba], interaction: 'deferred' }),
    );
    expect(result.stdout).not.toContain(secret);
    const after = await storedSource('eurofiber-sonata');
    expect([before.credentials, after.credentials, after.settings.interaction]).toEqual([
      secret,
      secret,
      'deferred',
    ]);
  });

  it('when --client-secret is given for a source named by id, then it replaces the stored secret, never printed', async () => {
    const { id } = await storedSource('eurofiber-sonata');
    const replacement = 'sonata-client-secret-rotated-93d0a4';

    const result = await updateSonata([
      '--source',
      id,
      '--client-secret',
      replacement,
      '--contact-email',
      'ops@gateway.example',
    ]);

    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const { sonata } = JSON.parse(result.stdout);
    expect([sonata.oauth2.has_client_secret, sonata.buyer_contact.email_address, sonata.interaction]).toEqual(
      [true, 'ops@gateway.example', 'deferred'],
    );
    expect(result.stdout).not.toContain(replacement);
    expect((await storedSource('eurofiber-sonata')).credentials).toBe(replacement);
  });

  it('when the source is unknown, then it exits 1 with NOT_FOUND naming it', async () => {
    const result = await updateSonata(['--source', 'no-such-source', '--interaction', 'instant']);

    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(JSON.parse(result.stderr)).toEqual({
      error: 'NOT_FOUND',
      message: 'Source "no-such-source" was not found.',
      problems: [],
    });
  });

  it('when the source is not a mef-sonata source, then it exits 1 with VALIDATION saying its type', async () => {
    const registered = await admin.api.graphql(
      'mutation ($input: RegisterSourceInput!) { registerSource(input: $input) { source { id } } }',
      {
        input: {
          key: 'plain-api',
          name: 'Plain',
          network: 'Plain',
          countryCodes: ['NL'],
          endpointUrl: 'https://plain.example/availability',
        },
      },
    );
    expect(registered.errors).toBeUndefined();

    const result = await updateSonata(['--source', 'plain-api', '--interaction', 'instant']);

    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(JSON.parse(result.stderr)).toEqual({
      error: 'VALIDATION',
      message: 'The source is invalid.',
      problems: [{ path: '/id', message: 'is not a mef-sonata source (its type is http)' }],
    });
  });

  it('when a value is invalid, then it exits 1 naming each field in snake_case and changes nothing', async () => {
    const before = await storedSource('eurofiber-sonata');

    const result = await updateSonata([
      '--source',
      'eurofiber-sonata',
      '--interaction',
      'sometimes',
      '--poll-max-ms',
      '0',
    ]);

    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(JSON.parse(result.stderr)).toEqual({
      error: 'VALIDATION',
      message: 'The source is invalid.',
      problems: [
        {
          path: '/sonata/interaction',
          message: 'Invalid option: expected one of "instant"|"deferred"|"notifications"',
        },
        { path: '/sonata/poll/max_delay_ms', message: 'Too small: expected number to be >=1' },
      ],
    });
    expect(await storedSource('eurofiber-sonata')).toEqual(before);
  });
});
