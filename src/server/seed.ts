import type { Services } from '../context.js';
import { createApplication, createInstance } from '../resolvers/operator.js';

/** Credentials of the seeded demo instance, shown once on first start. */
export interface DemoSeed {
  instanceId: string;
  instanceCode: string;
  clientId: string;
  clientSecret: string;
}

/**
 * On a database without any instance, creates the demo instance ("Demo Telecom", code DEMO) with the NL
 * demo catalogue and an application holding both roles. Returns its credentials, or null when the
 * database already had instances — or when another instance of the gateway, starting at the same moment on
 * the same empty database, created it first (issue 17: instances started together must not crash).
 *
 * @throws whatever creating the instance threw, when no DEMO instance exists after it.
 */
export async function seedDemoInstance(services: Services): Promise<DemoSeed | null> {
  if ((await services.db.countInstances()) > 0) return null;
  let instance: Awaited<ReturnType<typeof createInstance>>['instance'];
  try {
    ({ instance } = await createInstance(services, {
      name: 'Demo Telecom',
      code: 'DEMO',
      demoCatalog: true,
    }));
  } catch (error) {
    if (await services.db.findInstance('DEMO')) return null;
    throw error;
  }
  const credentials = await createApplication(services, {
    instance: instance.id,
    name: 'Demo client',
    roles: ['instance_admin', 'connectivity_check'],
  });
  return {
    instanceId: instance.id,
    instanceCode: instance.code,
    clientId: credentials.clientId,
    clientSecret: credentials.clientSecret,
  };
}
