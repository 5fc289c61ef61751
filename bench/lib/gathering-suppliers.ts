import type { Services } from '../../src/context.js';
import { startSupplierSimulator } from '../../src/gathering/simulator/server.js';
import { sonataProductOfferings } from '../../src/gathering/simulator/sonata/offerings.js';
import { startSonataSeller } from '../../src/gathering/simulator/sonata/server.js';
import { demoCatalogPath, readCatalogFile } from '../../src/gathering/sources/catalog-file.js';
import { registerInstanceSource } from '../../src/resolvers/operator.js';
import {
  type GatheringBound,
  gatheringBound,
  recordSupplierCalls,
  type SupplierCall,
  sonataCallOf,
  sonataWork,
  supplierCallOf,
} from './gathering-bound.js';

/**
 * The simulated suppliers a gathering run asks, and the bound their answers allow.
 *
 * - `http`: six of the demo catalogue's sources as `http` sources of the supplier simulator
 *   (docs/supplier-contract.md), answering in 50–400 ms (issue 8).
 * - `sonata-half`: the same six, every other one (KPN WEAS, Colt, Ziggo) a `mef-sonata` source of the
 *   simulator's deferred Sonata seller instead (issue 18): each call answered in 50–400 ms, and a POQ or Quote
 *   done {@link sonataProcessingMs} after the seller acknowledged it, the adapter polling as configured by
 *   default (it reads the seller's expected completion date).
 */
export type SupplierMix = 'http' | 'sonata-half';

/** Six of the demo catalogue's sources, so the simulators answer with real offers at the bench addresses. */
const sourceKeys = [
  ['kpn-wba', 'KPN'],
  ['kpn-weas', 'KPN'],
  ['eurofiber', 'Eurofiber'],
  ['colt', 'Colt'],
  ['zayo', 'Zayo'],
  ['ziggo', 'Ziggo'],
] as const;

/** The deferred Sonata seller's step (acknowledged → inProgress → done): 150 ms each. */
const sonataStepMs = 150;
/** How long the Sonata seller works on a POQ or a Quote after acknowledging it: two steps. */
export const sonataProcessingMs = 2 * sonataStepMs;

const latency = { latencyMinMs: 50, latencyMaxMs: 400 };

/** The suppliers of one run, with a recorder of every call they answer. */
export interface GatheringSuppliers {
  /** The number of sources and what they speak, for the log. */
  description: string;
  /** Registers the sources in instance `code` through the operator resolvers the CLI uses. */
  register(services: Services, code: string): Promise<void>;
  /** Forgets the calls so far (after the warm-up). */
  reset(): void;
  /** The bound on the wall time of the calls made since the last reset ({@link gatheringBound}). */
  bound(options: { concurrency: number; perSourceConcurrency: number }): GatheringBound;
  /** Every call's time since the last reset, ms. */
  callMs(): number[];
  stop(): Promise<void>;
}

/**
 * Starts the suppliers of `mix` on 127.0.0.1; sources registered through {@link GatheringSuppliers.register}
 * get `concurrency` calls in flight each and a 10 s timeout.
 */
export async function startGatheringSuppliers(
  mix: SupplierMix,
  concurrency: number,
): Promise<GatheringSuppliers> {
  const simulator = await startSupplierSimulator({ behaviour: latency });
  const seller =
    mix === 'sonata-half'
      ? await startSonataSeller({ behaviour: { ...latency, stepMs: sonataStepMs }, record: false })
      : null;
  const httpCalls = recordSupplierCalls(simulator.port, supplierCallOf);
  const sonataCalls = seller ? recordSupplierCalls(seller.port, sonataCallOf) : null;
  const catalog = readCatalogFile(demoCatalogPath);
  const speaksSonata = (index: number) => seller !== null && index % 2 === 1;
  const calls = (): SupplierCall[] => [...httpCalls.calls, ...(sonataCalls?.calls ?? [])];

  return {
    description:
      seller === null
        ? `${sourceKeys.length} http sources`
        : `${sourceKeys.length / 2} http + ${sourceKeys.length / 2} deferred mef-sonata sources`,
    async register(services, code) {
      for (const [index, [key, network]] of sourceKeys.entries()) {
        const common = {
          key,
          name: `Simulated ${key}`,
          network,
          countryCodes: ['NL'],
          timeoutMs: 10_000,
          concurrency,
        };
        if (seller && speaksSonata(index)) {
          await registerInstanceSource(services, code, {
            ...common,
            type: 'mef-sonata',
            sonata: {
              baseUrl: seller.baseUrl(key, 'deferred'),
              oauth2: {
                tokenUrl: seller.tokenUrl(key),
                clientId: seller.credentials.clientId,
                clientSecret: seller.credentials.clientSecret,
              },
              buyerContact: {
                name: 'Bench NOC',
                emailAddress: 'noc@bench.example',
                number: '+31 20 555 0100',
              },
              productOfferings: sonataProductOfferings(catalog, key),
              interaction: 'deferred',
            },
          });
        } else {
          await registerInstanceSource(services, code, { ...common, endpointUrl: simulator.endpoint(key) });
        }
      }
    },
    reset() {
      httpCalls.reset();
      sonataCalls?.reset();
    },
    bound(options) {
      const sonata = sonataWork(sonataCalls?.calls ?? [], sonataProcessingMs);
      return gatheringBound([...httpCalls.calls, ...sonata.calls], {
        ...options,
        slotJobs: [...httpCalls.calls, ...sonata.jobs],
      });
    },
    callMs: () => calls().map((call) => call.ms),
    async stop() {
      httpCalls.stop();
      sonataCalls?.stop();
      await seller?.stop();
      await simulator.stop();
    },
  };
}
