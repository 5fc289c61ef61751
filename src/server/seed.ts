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
 * database already had instances.
 */
export async function seedDemoInstance(services: Services): Promise<DemoSeed | null> {
  if ((await services.db.countInstances()) > 0) return null;
  const { instance } = await createInstance(services, {
    name: 'Demo Telecom',
    code: 'DEMO',
    demoCatalog: true,
  });
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
