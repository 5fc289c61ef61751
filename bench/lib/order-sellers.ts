import type { Services } from '../../src/context.js';
import { sonataProductOfferings } from '../../src/gathering/simulator/sonata/offerings.js';
import { startSonataSeller } from '../../src/gathering/simulator/sonata/server.js';
import { demoCatalogPath, readCatalogFile } from '../../src/gathering/sources/catalog-file.js';
import { registerInstanceSource } from '../../src/resolvers/operator.js';
import { recordSupplierCalls } from './gathering-bound.js';
import { type OrderBound, type OrderCall, orderBound, orderCallOf } from './order-bound.js';

/*
 * The sellers the order scenario orders from (issue 36): three of the demo catalogue's sources, each a
 * `mef-sonata` source of the simulator's deferred Sonata seller, so that a quote with one product of each
 * network is ordered as three supplier orders at three sellers.
 */

/** The three sellers: catalogue source key and network (the ones `gathering-sonata` makes Sonata sellers). */
export const orderSellers = [
  { key: 'kpn-weas', network: 'KPN' },
  { key: 'colt', network: 'Colt' },
  { key: 'ziggo', network: 'Ziggo' },
] as const;

/**
 * The seller's step (acknowledged → inProgress → siteSurveyCompleted → completed): three steps make an order
 * complete {@link orderProcessingMs} after the seller acknowledged it — 1 s, as issue 36 asks.
 */
const orderStepMs = 333;
/** How long the seller works on an order after acknowledging it: validation, site survey, delivery. */
export const orderProcessingMs = 3 * orderStepMs;

/** Every seller call is answered in 50–400 ms (uniform), as in the gathering scenarios. */
const latency = { latencyMinMs: 50, latencyMaxMs: 400 };

/**
 * Each source's `timeoutMs`: a whole deferred query (token, POQ, its wait, Quote, its wait) and each order
 * step, bulkhead queue included, must fit in it. 30 s rather than the gathering scenarios' 10 s: the quotes
 * are gathered on a machine that may be busy, where a burst of timeouts opens the source's breaker for 30 s.
 */
const sellerTimeoutMs = 30_000;

/** The sellers of one run, with a recorder of every call they answer. */
export interface OrderSellers {
  /** Registers the sources in instance `code`, through the operator resolvers the CLI uses. */
  register(services: Services, code: string): Promise<void>;
  /** Forgets the calls so far (the preparation's POQs and Quotes, the warm-up). */
  reset(): void;
  /** Every call since the last reset. */
  calls(): readonly OrderCall[];
  /** The bound on the calls since the last reset ({@link orderBound}). */
  bound(concurrency: number): OrderBound;
  stop(): Promise<void>;
}

/**
 * Starts the deferred Sonata seller on 127.0.0.1 (each call 50–400 ms, an order done
 * {@link orderProcessingMs} after its acknowledgement); the sources registered get `concurrency` calls in
 * flight each (their bulkhead), a {@link sellerTimeoutMs} timeout and the given `poll` back-off (the
 * adapter's default when absent).
 */
export async function startOrderSellers(options: {
  concurrency: number;
  poll?: { initialDelayMs: number; maxDelayMs: number };
}): Promise<OrderSellers> {
  const seller = await startSonataSeller({ behaviour: { ...latency, stepMs: orderStepMs }, record: false });
  const recorder = recordSupplierCalls(seller.port, orderCallOf);
  const catalog = readCatalogFile(demoCatalogPath);
  return {
    async register(services, code) {
      for (const { key, network } of orderSellers) {
        await registerInstanceSource(services, code, {
          key,
          name: `Simulated ${key}`,
          network,
          countryCodes: ['NL'],
          timeoutMs: sellerTimeoutMs,
          concurrency: options.concurrency,
          type: 'mef-sonata',
          sonata: {
            baseUrl: seller.baseUrl(key, 'deferred'),
            oauth2: {
              tokenUrl: seller.tokenUrl(key),
              clientId: seller.credentials.clientId,
              clientSecret: seller.credentials.clientSecret,
            },
            buyerContact: { name: 'Bench NOC', emailAddress: 'noc@bench.example', number: '+31 20 555 0100' },
            productOfferings: sonataProductOfferings(catalog, key),
            interaction: 'deferred',
            ...(options.poll ? { poll: options.poll } : {}),
          },
        });
      }
    },
    reset: () => recorder.reset(),
    calls: () => recorder.calls,
    bound: (concurrency) =>
      orderBound(recorder.calls, {
        concurrency,
        perSourceConcurrency: options.concurrency,
        processingMs: orderProcessingMs,
      }),
    async stop() {
      recorder.stop();
      await seller.stop();
    },
  };
}
