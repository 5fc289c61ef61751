import { afterEach, describe, expect, it } from 'vitest';
import { seedDemoInstance } from '../../src/server/seed.js';
import { startTestServer, type TestServer, tempDatabasePath } from '../helpers/app.js';

describe('the demo seed', () => {
  const servers: TestServer[] = [];
  afterEach(async () => {
    for (const server of servers.splice(0)) await server.close();
  });

  it('when two instances of the gateway seed one empty database at once, then exactly one creates DEMO and neither fails', async () => {
    const database = tempDatabasePath();
    try {
      for (let index = 0; index < 2; index += 1)
        servers.push(await startTestServer({ databasePath: database.path, startWorker: false }));
      const [first, second] = servers as [TestServer, TestServer];

      const seeds = await Promise.all([
        seedDemoInstance(first.app.services),
        seedDemoInstance(second.app.services),
      ]);

      const created = seeds.filter((seed) => seed !== null);
      expect(created).toHaveLength(1);
      expect(created[0]?.instanceCode).toBe('DEMO');
      expect(await first.app.services.db.countInstances()).toBe(1);
      const signIn = await first.anonymous.post('/authentication', {
        client_id: created[0]?.clientId,
        client_secret: created[0]?.clientSecret,
      });
      expect(signIn.status).toBe(200);
    } finally {
      for (const server of servers.splice(0)) await server.close();
      database.remove();
    }
  });

  it('when the database has an instance already, then nothing is seeded', async () => {
    const server = await startTestServer({ startWorker: false });
    servers.push(server);
    await server.tenant();
    expect(await seedDemoInstance(server.app.services)).toBeNull();
    expect(await server.app.services.db.countInstances()).toBe(1);
  });
});
