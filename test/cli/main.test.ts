import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer, tempDatabasePath } from '../helpers/app.js';
import { runCli } from '../helpers/cli.js';

const database = tempDatabasePath();
let server: TestServer;

// The service runs on the same database throughout: the CLI must work beside it.
beforeAll(async () => {
  server = await startTestServer({ databasePath: database.path });
});

afterAll(async () => {
  await server.close();
  database.remove();
});

describe('instance create', () => {
  it('when given a name, a code and --demo-catalog, then prints the instance and its catalogue counts', async () => {
    const result = await runCli(database.path, [
      'instance',
      'create',
      '--name',
      'Acme Telecom',
      '--code',
      'ACM',
      '--demo-catalog',
    ]);

    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const printed = JSON.parse(result.stdout);
    expect(printed).toEqual({
      id: expect.stringMatching(/^ins_/),
      name: 'Acme Telecom',
      code: 'ACM',
      catalog: { sources: 7, areas: expect.any(Number), offers: expect.any(Number) },
    });
    expect(printed.catalog.areas).toBeGreaterThan(0);
    expect(printed.catalog.offers).toBeGreaterThan(0);
  });

  it('when the code is taken, then exits 1 with a CONFLICT error on stderr', async () => {
    const first = await runCli(database.path, ['instance', 'create', '--name', 'Dup One', '--code', 'DUP']);

    const second = await runCli(database.path, ['instance', 'create', '--name', 'Dup Two', '--code', 'DUP']);

    expect(first.code).toBe(0);
    expect(second.code).toBe(1);
    expect(second.stdout).toBe('');
    expect(JSON.parse(second.stderr)).toEqual({
      error: 'CONFLICT',
      message: 'Instance code DUP is taken.',
      problems: [],
    });
  });

  it('when created without --demo-catalog, then prints a null catalogue', async () => {
    const result = await runCli(database.path, [
      'instance',
      'create',
      '--name',
      'Bare Telecom',
      '--code',
      'BARE',
    ]);

    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({
      id: expect.stringMatching(/^ins_/),
      name: 'Bare Telecom',
      code: 'BARE',
      catalog: null,
    });
  });
});

describe('application create', () => {
  it('when given an instance code and roles, then prints credentials that the running service accepts', async () => {
    const instance = await runCli(database.path, [
      'instance',
      'create',
      '--name',
      'App Telecom',
      '--code',
      'APP',
    ]);
    const instanceId: string = JSON.parse(instance.stdout).id;

    const result = await runCli(database.path, [
      'application',
      'create',
      '--instance',
      'APP',
      '--roles',
      'instance_admin,connectivity_check',
    ]);

    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const credentials = JSON.parse(result.stdout);
    expect(credentials).toEqual({
      client_id: expect.any(String),
      client_secret: expect.any(String),
      instance_id: instanceId,
      roles: ['instance_admin', 'connectivity_check'],
    });
    const signIn = await server.anonymous.post('/authentication', {
      client_id: credentials.client_id,
      client_secret: credentials.client_secret,
    });
    expect(signIn.status).toBe(200);
    expect(signIn.body.data.user.roles).toEqual(['instance_admin', 'connectivity_check']);
  });

  it('when a role is unknown, then exits 1 with a VALIDATION error naming the role', async () => {
    await runCli(database.path, ['instance', 'create', '--name', 'Role Telecom', '--code', 'ROLE']);

    const result = await runCli(database.path, [
      'application',
      'create',
      '--instance',
      'ROLE',
      '--roles',
      'connectivity_check,superuser',
    ]);

    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(JSON.parse(result.stderr)).toEqual({
      error: 'VALIDATION',
      message: 'The application is invalid.',
      problems: [{ path: '/roles/1', message: expect.stringContaining('instance_admin') }],
    });
  });

  it('when the instance is unknown, then exits 1 with a NOT_FOUND error', async () => {
    const result = await runCli(database.path, [
      'application',
      'create',
      '--instance',
      'NOPE',
      '--roles',
      'connectivity_check',
    ]);

    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(JSON.parse(result.stderr)).toEqual({
      error: 'NOT_FOUND',
      message: 'Instance "NOPE" was not found.',
      problems: [],
    });
  });
});
