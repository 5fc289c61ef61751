import { afterAll, beforeAll } from 'vitest';
import type { SonataSellerMode } from '../../src/gathering/simulator/sonata/lifecycle.js';
import { type SonataSeller, startSonataSeller } from '../../src/gathering/simulator/sonata/server.js';
import { registerSonata } from '../gathering/sonata-gateway.js';
import { sellerSettings } from '../gathering/sources/mef-sonata/fixtures.js';
import { startTestServer, type TestServer, type TestTenant } from '../helpers/app.js';

/** One Sonata source of a {@link sonataWorld}: the simulated seller's source key, its network and how it is asked. */
export interface WorldSource {
  key: string;
  network: string;
  mode: SonataSellerMode;
  interaction: Parameters<typeof sellerSettings>[3];
  /** Further settings and the seller's knobs (`query`), as `sellerSettings` takes them. */
  fields?: Parameters<typeof sellerSettings>[4];
}

/** What a {@link sonataWorld} started, there from the enclosing describe's first test on. */
export interface SonataWorld {
  seller: SonataSeller;
  server: TestServer;
  /** An instance admin (who may also check connectivity) of a tenant without the demo catalogue. */
  admin: TestTenant;
  /** The registered sources' ids, by their `key`. */
  sourceIds: Record<string, string>;
}

/**
 * The world of the gateway-level ordering tests, started by the enclosing describe's `beforeAll` and stopped by
 * its `afterAll`: a simulated Sonata seller (steps of 20 ms), a gateway (with `env()`'s environment when given),
 * an admin tenant, and `sources` registered in order.
 */
export function sonataWorld(
  sources: readonly WorldSource[],
  env?: () => Promise<Record<string, string>>,
): SonataWorld {
  // Filled by beforeAll before any test reads it.
  const world = { sourceIds: {} } as SonataWorld;
  beforeAll(async () => {
    world.seller = await startSonataSeller({ behaviour: { stepMs: 20 } });
    world.server = await startTestServer(env ? { env: await env() } : {});
    world.admin = await world.server.tenant({
      demoCatalog: false,
      roles: ['instance_admin', 'connectivity_check'],
    });
    for (const { key, network, mode, interaction, fields } of sources) {
      const settings = sellerSettings(world.seller, key, mode, interaction, fields);
      world.sourceIds[key] = await registerSonata(world.admin, key, network, settings);
    }
  });
  afterAll(async () => {
    await world.server?.close();
    await world.seller?.stop();
  });
  return world;
}
