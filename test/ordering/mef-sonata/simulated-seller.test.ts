import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { SonataOrderTerms } from '../../../src/db/contract/order-terms.js';
import type { SourceRow } from '../../../src/db/rows.js';
import { type SonataSeller, startSonataSeller } from '../../../src/gathering/simulator/sonata/server.js';
import { type SonataCallScope, SonataClient } from '../../../src/gathering/sources/mef-sonata/client.js';
import type { SonataSourceSettings } from '../../../src/gathering/sources/mef-sonata/settings.js';
import { createMefSonataSource } from '../../../src/gathering/sources/mef-sonata/source.js';
import { SonataTokenCache } from '../../../src/gathering/sources/mef-sonata/token.js';
import { SourcePolicies } from '../../../src/gathering/sources/policies.js';
import type { SonataOrderView } from '../../../src/ordering/mef-sonata/order-answers.js';
import {
  orderListenerEventType,
  parseOrderEvent,
  type SonataOrderEvent,
} from '../../../src/ordering/mef-sonata/order-events.js';
import { lineStatusOf, orderStatusOf } from '../../../src/ordering/mef-sonata/order-states.js';
import { SonataOrdering } from '../../../src/ordering/mef-sonata/ordering-client.js';
import {
  fastPolicy,
  queryOf,
  requestRow,
  sellerSettings,
  sourceRow,
} from '../../gathering/sources/mef-sonata/fixtures.js';
import { type SonataValidator, sonataApiOf, sonataValidator } from '../../helpers/sonata-openapi.js';
import { orderToPlace } from './fixtures.js';

/*
 * The ordering client end to end against the simulated Sonata seller: a POQ and Quote gathered by the
 * `mef-sonata` source give the order terms, the order is placed with them and followed to its end — with a
 * blocking Charge answered on a chargeCreateEvent — and every exchange and notification is checked against
 * the MEF documents.
 */

let seller: SonataSeller;
let validator: SonataValidator;
let callbacks: Server;
let callbackUrl: string;
const events: SonataOrderEvent[] = [];

beforeAll(async () => {
  validator = await sonataValidator();
  seller = await startSonataSeller({ behaviour: { stepMs: 30 } });
  callbacks = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const type = orderListenerEventType(req.url ?? '');
      const parsed = parseOrderEvent(JSON.parse(Buffer.concat(chunks).toString('utf8')), type ?? undefined);
      if (parsed.ok) events.push(parsed.event);
      res.writeHead(parsed.ok ? 204 : 400).end();
    });
  });
  await new Promise<void>((resolve) => callbacks.listen(0, '127.0.0.1', resolve));
  callbackUrl = `http://127.0.0.1:${(callbacks.address() as AddressInfo).port}/callbacks/src_1/token`;
});

afterAll(async () => {
  await seller.stop();
  callbacks.closeAllConnections();
  await new Promise<void>((resolve) => callbacks.close(() => resolve()));
});

let exchangesChecked = 0;
let notificationsChecked = 0;
afterEach(async () => {
  await seller.settled();
  for (const exchange of seller.exchanges.slice(exchangesChecked)) {
    const api = sonataApiOf(exchange.path);
    if (!api) throw new Error(`no API for ${exchange.path}`);
    const { method, path, query } = exchange;
    expect(
      validator.request(api, { method, path, query, body: exchange.requestBody }),
      `${method} ${path}`,
    ).toEqual([]);
    expect(
      validator.response(api, { method, path, status: exchange.status, body: exchange.responseBody }),
      `${exchange.status} to ${method} ${path}`,
    ).toEqual([]);
  }
  for (const notification of seller.notifications.slice(notificationsChecked)) {
    const path = new URL(notification.url).pathname;
    expect(validator.notification('order', { path, body: notification.body }), path).toEqual([]);
    expect(notification.status).toBe(204);
  }
  exchangesChecked = seller.exchanges.length;
  notificationsChecked = seller.notifications.length;
});

/** The order terms of one quoted 100/100 Mbit/s, 36-month Eurofiber product, gathered from the seller. */
async function quotedTerms(settings: SonataSourceSettings, source: SourceRow): Promise<SonataOrderTerms> {
  const adapter = createMefSonataSource({
    now: () => new Date(),
    settingsOf: () => settings,
    policy: fastPolicy,
  });
  const request = requestRow({ bandwidths: [{ download: 100_000, upload: 100_000 }], contractTerms: [36] });
  const gathering = await adapter.gather(queryOf(source, request));
  const terms = gathering.offers[0]?.orderTerms;
  if (terms?.kind !== 'mef-sonata') throw new Error('the seller quoted nothing to order');
  return terms;
}

function setUp(query: Record<string, string> = {}) {
  const settings = sellerSettings(seller, 'eurofiber', 'instant', 'instant', { query });
  const source = sourceRow({ timeoutMs: 5_000 });
  const now = () => new Date();
  const ordering = new SonataOrdering(
    new SonataClient(new SourcePolicies(fastPolicy), new SonataTokenCache({ now }), now),
  );
  const scope = (): SonataCallScope => {
    const querySignal = new AbortController().signal;
    return { source, settings, deadline: AbortSignal.timeout(5_000), querySignal };
  };
  return { settings, source, ordering, scope };
}

async function until(check: () => Promise<boolean> | boolean, what: string): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('ordering from the simulated seller', () => {
  it('when a quoted product is ordered, then the order is acknowledged, completes, and its product is active in the inventory', async () => {
    const { settings, source, ordering, scope } = setUp();
    const terms = await quotedTerms(settings, source);
    const order = orderToPlace({
      externalId: 'sor_e2e_1',
      items: [{ id: '1', terms, contractTermMonths: 36 }],
    });

    const placed = await ordering.create(scope(), order);
    expect([placed.externalId, placed.state, placed.items.map((item) => item.state)]).toEqual([
      'sor_e2e_1',
      'acknowledged',
      ['acknowledged'],
    ]);
    expect((await ordering.findByExternalId(scope(), 'sor_e2e_1'))?.id).toBe(placed.id);

    let view: SonataOrderView = placed;
    await until(async () => {
      view = await ordering.retrieve(scope(), placed.id);
      return view.state === 'completed';
    }, 'the order to complete');
    const [item] = view.items;
    expect(orderStatusOf(view.items.map((each) => lineStatusOf(each.state)))).toBe('completed');
    expect(item?.completionDate).not.toBeNull();
    expect(item?.milestones.map((milestone) => milestone.name)).toContain('siteSurveyCompleted');
    const product = await ordering.retrieveProduct(scope(), item?.productId ?? '');
    expect(seller.exchanges.map((exchange) => `${exchange.method} ${sonataApiOf(exchange.path)}`)).toEqual(
      expect.arrayContaining(['POST poq', 'POST quote', 'POST order', 'GET order', 'GET inventory']),
    );
    expect([product.id, product.status]).toEqual([item?.productId, 'active']);
  });

  it('when the seller holds the item on a blocking Charge, then its chargeCreateEvent arrives, accepting it completes the order', async () => {
    const { settings, source, ordering, scope } = setUp({ order: 'hold-charge', charge_due_ms: '5000' });
    const listener = await ordering.registerListeners(scope(), callbackUrl);
    expect(listener).not.toBeNull();
    const terms = await quotedTerms(settings, source);
    const placed = await ordering.create(
      scope(),
      orderToPlace({ externalId: 'sor_e2e_2', items: [{ id: '1', terms, contractTermMonths: 36 }] }),
    );

    await until(() => events.some((event) => event.eventType === 'chargeCreateEvent'), 'a chargeCreateEvent');
    const chargeId = events.find((event) => event.eventType === 'chargeCreateEvent')?.chargeId ?? '';
    expect(await ordering.awaitedCharges(scope(), placed.id)).toEqual([chargeId]);
    const held = await ordering.retrieve(scope(), placed.id);
    expect([held.state, held.items[0]?.state, lineStatusOf(held.items[0]?.state ?? 'held')]).toEqual([
      'held.assessingCharge',
      'held',
      'in_progress',
    ]);
    const charge = await ordering.retrieveCharge(scope(), chargeId);
    expect([charge.state, charge.productOrderId, charge.items.every((each) => each.blocking)]).toEqual([
      'awaitingResponse',
      placed.id,
      true,
    ]);

    const answered = await ordering.answerCharge(scope(), chargeId, true);
    expect(answered.items.map((each) => each.state)).toEqual(charge.items.map(() => 'acceptedByBuyer'));
    await until(
      async () => (await ordering.retrieve(scope(), placed.id)).state === 'completed',
      'the order to complete',
    );
    const done = await ordering.retrieve(scope(), placed.id);
    expect(done.items[0]?.chargeIds).toEqual([chargeId]);
    await seller.settled();
    expect(events.filter((event) => event.orderId === placed.id).map((event) => event.eventType)).toContain(
      'productOrderStateChangeEvent',
    );
    await ordering.unregisterListener(scope(), listener ?? '');
  });

  it('when the seller rejects the order, then every line failed with the seller’s reason', async () => {
    const { settings, source, ordering, scope } = setUp({ order: 'reject' });
    const terms = await quotedTerms(settings, source);
    const placed = await ordering.create(
      scope(),
      orderToPlace({ externalId: 'sor_e2e_3', items: [{ id: '1', terms, contractTermMonths: 36 }] }),
    );
    let view: SonataOrderView = placed;
    await until(async () => {
      view = await ordering.retrieve(scope(), placed.id);
      return view.state === 'rejected';
    }, 'the order to be rejected');
    expect(orderStatusOf(view.items.map((each) => lineStatusOf(each.state)))).toBe('failed');
    expect(view.items[0]?.errorMessage).toEqual(expect.any(String));
  });
});
