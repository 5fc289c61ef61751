import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer, type TestTenant, tempDatabasePath } from '../helpers/app.js';
import { runCli } from '../helpers/cli.js';

const sourceId = expect.stringMatching(/^src_[0-9a-z]{26}$/);
const secret = 'supplier-secret-5b0e7d21';

const database = tempDatabasePath();
let server: TestServer;
let admin: TestTenant;

// The service runs on the same database: what the CLI registers, the service's GraphQL API shows.
beforeAll(async () => {
  server = await startTestServer({ databasePath: database.path, startWorker: false });
  admin = await server.tenant({ code: 'SRC', demoCatalog: false, roles: ['instance_admin'] });
});
afterAll(async () => {
  await server.close();
  database.remove();
});

/** Runs a `source` command and returns its parsed JSON output, failing on any error output. */
async function source(args: string[]) {
  const result = await runCli(database.path, ['source', ...args]);
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
  return JSON.parse(result.stdout);
}

const colt = {
  id: sourceId,
  key: 'colt',
  name: 'Colt',
  network: 'Colt',
  type: 'http',
  country_codes: ['NL', 'BE'],
  enabled: true,
  endpoint_url: 'http://127.0.0.1:4100/suppliers/colt/availability',
  has_credentials: true,
  timeout_ms: 2500,
  concurrency: 8,
};
/** The instance's sources as the running service shows them. */
async function served() {
  const listed = await admin.api.graphql('{ sources { id key enabled hasCredentials } }');
  expect(listed.errors).toBeUndefined();
  return listed.data.sources;
}

const ziggo = {
  id: sourceId,
  key: 'ziggo',
  name: 'Ziggo',
  network: 'Ziggo',
  type: 'http',
  country_codes: ['NL'],
  enabled: false,
  endpoint_url: 'https://ziggo.example/availability',
  has_credentials: false,
  timeout_ms: 10_000,
  concurrency: 4,
};

// Each CLI run starts a fresh Node process (about 2 s), so a test with several runs gets more time.
describe('source add, list, enable, disable', { timeout: 60_000 }, () => {
  let coltId: string;

  it('when a source is added with credentials, then it prints the source with has_credentials and never the secret', async () => {
    const result = await runCli(database.path, [
      'source',
      'add',
      '--instance',
      'SRC',
      '--key',
      'colt',
      '--name',
      'Colt',
      '--network',
      'Colt',
      '--url',
      'http://127.0.0.1:4100/suppliers/colt/availability',
      '--countries',
      'NL,BE',
      '--credentials',
      secret,
      '--timeout-ms',
      '2500',
      '--concurrency',
      '8',
    ]);

    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual(colt);
    expect(result.stdout).not.toContain(secret);
    coltId = JSON.parse(result.stdout).id;
    expect(await served()).toEqual([{ id: coltId, key: 'colt', enabled: true, hasCredentials: true }]);
  });

  it('when a source is added with the defaults and --disabled, then it is NL only, 10 s, 4 in flight, disabled', async () => {
    const added = await source([
      'add',
      '--instance',
      admin.instanceId,
      '--key',
      'ziggo',
      '--name',
      'Ziggo',
      '--network',
      'Ziggo',
      '--url',
      'https://ziggo.example/availability',
      '--disabled',
    ]);

    expect(added).toEqual(ziggo);
  });

  it('when the sources are listed, then both are printed, ordered by network, without the secret', async () => {
    const result = await runCli(database.path, ['source', 'list', '--instance', 'SRC']);

    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual([{ ...colt, id: coltId }, ziggo]);
    expect(result.stdout).not.toContain(secret);
    expect(await source(['list', '--instance', admin.instanceId])).toEqual(JSON.parse(result.stdout));
  });

  it('when a source is disabled and enabled again, then each command prints it and the list follows', async () => {
    const disabled = await source(['disable', '--instance', 'SRC', '--source', coltId]);
    const listedWhileDisabled = await source(['list', '--instance', 'SRC']);
    const servedWhileDisabled = await served();
    const enabled = await source(['enable', '--instance', 'SRC', '--source', coltId]);

    expect(disabled).toEqual({ ...colt, id: coltId, enabled: false });
    expect(listedWhileDisabled[0]).toEqual(disabled);
    expect(servedWhileDisabled[0]).toEqual({ id: coltId, key: 'colt', enabled: false, hasCredentials: true });
    expect(enabled).toEqual({ ...colt, id: coltId, enabled: true });
    expect((await served())[0].enabled).toBe(true);
  });

  it('when the instance is unknown, then every source command exits 1 with NOT_FOUND', async () => {
    const results = await Promise.all([
      runCli(database.path, ['source', 'list', '--instance', 'NOPE']),
      runCli(database.path, [
        'source',
        'add',
        '--instance',
        'NOPE',
        '--key',
        'kpn',
        '--name',
        'KPN',
        '--network',
        'KPN',
        '--url',
        'http://127.0.0.1:4100/',
      ]),
      runCli(database.path, ['source', 'enable', '--instance', 'NOPE', '--source', coltId]),
    ]);

    for (const result of results) {
      expect(result.code).toBe(1);
      expect(result.stdout).toBe('');
      expect(JSON.parse(result.stderr)).toEqual({
        error: 'NOT_FOUND',
        message: 'Instance "NOPE" was not found.',
        problems: [],
      });
    }
  });

  it('when the source is unknown or another instance’s, then enable exits 1 with NOT_FOUND', async () => {
    await server.tenant({ code: 'OTHR', demoCatalog: false });

    const unknown = await runCli(database.path, [
      'source',
      'enable',
      '--instance',
      'SRC',
      '--source',
      'src_01m81c3718e04ss8zkx0k227dm',
    ]);
    const foreign = await runCli(database.path, [
      'source',
      'disable',
      '--instance',
      'OTHR',
      '--source',
      coltId,
    ]);

    expect(unknown.code).toBe(1);
    expect(JSON.parse(unknown.stderr)).toEqual({
      error: 'NOT_FOUND',
      message: 'Source "src_01m81c3718e04ss8zkx0k227dm" was not found.',
      problems: [],
    });
    expect(foreign.code).toBe(1);
    expect(JSON.parse(foreign.stderr).error).toBe('NOT_FOUND');
    expect((await served())[0].enabled).toBe(true);
  });

  it('when the key is taken, then add exits 1 with CONFLICT and adds nothing', async () => {
    const before = await served();

    const result = await runCli(database.path, [
      'source',
      'add',
      '--instance',
      'SRC',
      '--key',
      'colt',
      '--name',
      'Colt 2',
      '--network',
      'Colt',
      '--url',
      'http://127.0.0.1:4200/',
      '--credentials',
      'another-secret',
    ]);

    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(JSON.parse(result.stderr)).toEqual({
      error: 'CONFLICT',
      message: 'A source with key colt exists already.',
      problems: [],
    });
    expect(await served()).toEqual(before);
  });

  it('when the URL is not http(s), then add exits 1 with VALIDATION naming the field', async () => {
    const result = await runCli(database.path, [
      'source',
      'add',
      '--instance',
      'SRC',
      '--key',
      'tele2',
      '--name',
      'Tele2',
      '--network',
      'Tele2',
      '--url',
      'file:///etc/passwd',
    ]);

    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(JSON.parse(result.stderr)).toEqual({
      error: 'VALIDATION',
      message: 'The source is invalid.',
      problems: [{ path: '/endpoint_url', message: 'must be an http(s) URL' }],
    });
  });
});
