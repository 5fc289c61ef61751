import { type Context, createContext, type Services } from '../../src/context.js';
import type { ChangedRequest } from '../../src/db/rows.js';
import type { SourceAdapter } from '../../src/gathering/sources/types.js';
import { type GatheringTaskSettled, GatheringWorker } from '../../src/gathering/worker.js';
import { authenticate, viewerForToken } from '../../src/resolvers/authentication.js';
import { createAvailabilityRequests } from '../../src/resolvers/availability-requests.js';
import { createApplication, createInstance } from '../../src/resolvers/operator.js';

/**
 * A demo-catalogue instance `code` with a `connectivity_check` application, signed in, and one request at
 * the contract's example address (1016XA 206: 7 matching sources). Returns the caller's context and the id.
 */
export async function requestAtExampleAddress(
  services: Services,
  code: string,
): Promise<{ ctx: Context; id: string }> {
  const { instance } = await createInstance(services, { name: `Worker ${code}`, code, demoCatalog: true });
  const credentials = await createApplication(services, {
    instance: instance.id,
    roles: ['connectivity_check'],
  });
  const { authToken } = await authenticate(services, {
    clientId: credentials.clientId,
    clientSecret: credentials.clientSecret,
  });
  const ctx = createContext(services, await viewerForToken(services, authToken));
  const { records } = await createAvailabilityRequests(ctx, [
    { address: { countryCode: 'NL', postalCode: '1016XA', houseNumber: '206' } },
  ]);
  return { ctx, id: records[0]?.request.id ?? '' };
}

/**
 * A worker over `services` with `adapter` for catalogue sources: 4 at a time, 10 s leases, 3 attempts,
 * polling every 20 ms; not started. `onChanges` hears the changes it tells (none by default).
 */
export function testWorker(
  services: Services,
  adapter: SourceAdapter,
  onTaskSettled?: (info: GatheringTaskSettled) => void,
  onChanges: (changes: readonly ChangedRequest[]) => void = () => {},
): GatheringWorker {
  return new GatheringWorker({
    db: services.db,
    logger: services.logger,
    clock: services.clock,
    adapters: new Map([['catalog', adapter]]),
    concurrency: 4,
    leaseMs: 10_000,
    maxAttempts: 3,
    onChanges,
    idlePollMs: 20,
    ...(onTaskSettled ? { onTaskSettled } : {}),
  });
}
