import { type SupplierSimulator, startSupplierSimulator } from '../../src/gathering/simulator/server.js';
import type { Json, TestServer, TestTenant } from '../helpers/app.js';
import { sonataQuote } from './sonata-orders-fixtures.js';

/*
 * What the http ordering tests share: a tenant with two suppliers of the simulator — KPN, whose offers carry
 * ids (ordered from it), and Eurofiber, whose offers do not (ordered by hand) — and a quote of one product of
 * each and a router.
 */

const REGISTER = `mutation ($input: RegisterSourceInput!) {
  registerSource(input: $input) { source { id } }
}`;

/** A simulator whose clock the test moves forward (`shiftMs`), on top of the wall clock. */
export interface MovableSimulator {
  sim: SupplierSimulator;
  clock: { shiftMs: number };
}

/** Starts a simulator whose orders move a state every 20 ms unless a knob says otherwise. */
export async function movableSimulator(): Promise<MovableSimulator> {
  const clock = { shiftMs: 0 };
  const sim = await startSupplierSimulator({
    behaviour: { stepMs: 20 },
    now: () => Date.now() + clock.shiftMs,
  });
  return { sim, clock };
}

/** Registers an `http` source in the tenant through GraphQL; returns its id. */
export async function registerHttpSource(
  tenant: TestTenant,
  input: { key: string; name: string; network: string; endpointUrl: string; timeoutMs?: number },
): Promise<string> {
  const result = await tenant.api.graphql(REGISTER, { input: { countryCodes: ['NL'], ...input } });
  if (result.errors) throw new Error(`registerSource failed: ${JSON.stringify(result.errors)}`);
  return result.data.registerSource.source.id;
}

/** A tenant, its KPN source (ids; `knobs` in its endpoint's query) and its quote of KPN, Eurofiber and a router. */
export interface HttpOrderSetup {
  tenant: TestTenant;
  kpnId: string;
  quote: Json;
}

/**
 * A new tenant with the simulator's `kpn-wba` (offers with ids; `knobs` on its endpoint URL, `timeoutMs`
 * when given) and `eurofiber` (`offer_ids=none`) as `http` sources, and a quote for a new customer of the
 * first KPN product, the first Eurofiber product and a router.
 */
export async function httpOrderSetup(
  server: TestServer,
  sim: SupplierSimulator,
  knobs: Record<string, string> = {},
  timeoutMs?: number,
): Promise<HttpOrderSetup> {
  const tenant = await server.tenant({ demoCatalog: false, roles: ['instance_admin', 'connectivity_check'] });
  const kpnId = await registerHttpSource(tenant, {
    key: 'kpn-wba',
    name: 'KPN WBA',
    network: 'KPN',
    endpointUrl: sim.endpoint('kpn-wba', knobs),
    ...(timeoutMs === undefined ? {} : { timeoutMs }),
  });
  await registerHttpSource(tenant, {
    key: 'eurofiber',
    name: 'Eurofiber',
    network: 'Eurofiber',
    endpointUrl: sim.endpoint('eurofiber', { offer_ids: 'none' }),
  });
  const quote = await sonataQuote(tenant, ['KPN', 'Eurofiber']);
  return { tenant, kpnId, quote };
}

/** The offer id the simulator gave the product of a quote line of `sourceKey` (`simulatedOfferId`). */
export const offerIdOf = (sourceKey: string, line: Json) =>
  [
    sourceKey,
    line.technology_type,
    line.connection_type,
    line.bandwidth.download,
    line.bandwidth.upload,
    line.contract_term,
  ]
    .join('-')
    .toLowerCase();

/** What an order line shows of its supplier (the fields the http step writes). */
export const supplierView = (line: Json) => ({
  status: line.status,
  supplier_status: line.supplier_status,
  supplier_order_id: line.supplier_order_id,
  supplier_item_id: line.supplier_item_id,
  expected_completion_date:
    line.expected_completion_date === null ? null : Date.parse(line.expected_completion_date),
  completion_date: line.completion_date === null ? null : Date.parse(line.completion_date),
  inventory_product_id: line.inventory_product_id,
  inventory_product_status: line.inventory_product_status,
  cancellation: line.cancellation,
  error: line.error,
});

/** The ordering calls a supplier saw, as `METHOD path status`. */
export const deskCalls = (sim: SupplierSimulator, sourceKey: string) =>
  sim.exchanges
    .filter((exchange) => exchange.sourceKey === sourceKey)
    .map(
      (exchange) =>
        `${exchange.method} ${exchange.path}${exchange.query.includes('external_id=') ? '?external_id' : ''} ${exchange.status}`,
    );
