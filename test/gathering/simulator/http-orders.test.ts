import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { simulatedOfferId } from '../../../src/gathering/simulator/offers.js';
import {
  cancelSimulatedOrder,
  SIMULATED_DECLINE,
  SIMULATED_FAILURE,
  type SimulatedOrder,
  simulatedOrderView,
} from '../../../src/gathering/simulator/orders.js';
import { type SupplierSimulator, startSupplierSimulator } from '../../../src/gathering/simulator/server.js';
import { demoCatalogPath, readCatalogFile } from '../../../src/gathering/sources/catalog-file.js';
import {
  type SupplierOrderRequest,
  type SupplierRequest,
  supplierOrderListSchema,
  supplierOrderSchema,
  supplierResponseSchema,
} from '../../../src/gathering/sources/supplier-contract.js';

/*
 * The ordering side of the supplier simulator (docs/supplier-contract.md, "Ordering"): how an order moves
 * with time and through a cancellation (worked out from the time it is read), and its HTTP endpoints with
 * their knobs, on a clock the test moves.
 */

const catalog = readCatalogFile(demoCatalogPath);
const kpnOffer = catalog.offers.find((offer) => offer.source === 'kpn-wba');
if (!kpnOffer) throw new Error('no kpn-wba offer in the demo catalogue');
const term = Number(Object.keys(kpnOffer.prices)[0]);
const offerId = simulatedOfferId('kpn-wba', kpnOffer, term);
const t0 = Date.parse('2025-01-06T09:00:00.000Z');
const step = 1_000;

const request = (externalId: string, items = 2): SupplierOrderRequest => ({
  external_id: externalId,
  customer_name: 'Acme Logistics B.V.',
  requested_completion_date: '2025-02-01T00:00:00.000Z',
  contact: { name: 'Jan de Vries', email: 'jan@reseller.example' },
  items: Array.from({ length: items }, (_, index) => ({
    id: `orl_${index + 1}`,
    offer_id: offerId,
    contract_term_months: term,
  })),
});

const order = (outcome: SimulatedOrder['outcome'] = 'complete'): SimulatedOrder => ({
  id: 'so-1',
  sourceKey: 'kpn-wba',
  request: request('sor_1'),
  createdAtMs: t0,
  outcome,
  stepMs: step,
  cancellation: null,
});

const at = (ms: number) => new Date(ms).toISOString();

describe('a simulated order as time goes by', () => {
  it('when it is read a step apart, then its items are accepted, in_progress, then completed with their products', () => {
    const placed = order();

    const views = [0, step, 2 * step].map((elapsed) => simulatedOrderView(placed, t0 + elapsed));

    expect(views.map((view) => [view.status, view.items.map((item) => item.status)])).toEqual([
      ['accepted', ['accepted', 'accepted']],
      ['in_progress', ['in_progress', 'in_progress']],
      ['completed', ['completed', 'completed']],
    ]);
    expect(views[2]).toEqual({
      id: 'so-1',
      external_id: 'sor_1',
      status: 'completed',
      items: [1, 2].map((n) => ({
        id: `orl_${n}`,
        offer_id: offerId,
        status: 'completed',
        expected_completion_date: at(t0 + 2 * step),
        completion_date: at(t0 + 2 * step),
        product_id: `so-1-p${n}`,
      })),
      cancellation: null,
    });
    for (const view of views) expect(supplierOrderSchema.parse(view)).toEqual(view);
  });

  it('when its outcome is fail, then its items end failed with the reason', () => {
    const view = simulatedOrderView(order('fail'), t0 + 2 * step);

    expect(view.status).toBe('failed');
    expect(view.items[0]).toEqual({
      id: 'orl_1',
      offer_id: offerId,
      status: 'failed',
      expected_completion_date: at(t0 + 2 * step),
      error: SIMULATED_FAILURE,
    });
  });

  it('when a cancellation is accepted while in progress, then the work stops and the items end cancelled once it is done', () => {
    const placed = order();
    const asked = cancelSimulatedOrder(placed, t0 + step, {
      outcome: 'accept',
      stepMs: 500,
      reason: 'moved',
    });

    const during = simulatedOrderView(placed, t0 + step + 499);
    const after = simulatedOrderView(placed, t0 + 10 * step);

    expect(asked).toBe(placed);
    expect([during.status, during.items[0]?.status, during.cancellation]).toEqual([
      'in_progress',
      'in_progress',
      { status: 'requested' },
    ]);
    expect(after).toEqual({
      id: 'so-1',
      external_id: 'sor_1',
      status: 'cancelled',
      items: [1, 2].map((n) => ({ id: `orl_${n}`, offer_id: offerId, status: 'cancelled' })),
      cancellation: { status: 'done' },
    });
  });

  it('when a cancellation is declined, then it says why and the items go on to completed', () => {
    const placed = order();
    cancelSimulatedOrder(placed, t0, { outcome: 'decline', stepMs: 0, reason: 'moved' });

    const view = simulatedOrderView(placed, t0 + 2 * step);

    expect([view.status, view.cancellation]).toEqual([
      'completed',
      { status: 'declined', reason: SIMULATED_DECLINE },
    ]);
  });

  it('when it is cancelled again, or after it ended, then the first cancellation stands or none is taken', () => {
    const placed = order();
    cancelSimulatedOrder(placed, t0, { outcome: 'accept', stepMs: 0, reason: 'first' });
    cancelSimulatedOrder(placed, t0 + 1, { outcome: 'decline', stepMs: 0, reason: 'second' });
    const completed = order();

    expect(placed.cancellation).toEqual({ requestedAtMs: t0, outcome: 'accept', stepMs: 0, reason: 'first' });
    expect(
      cancelSimulatedOrder(completed, t0 + 2 * step, { outcome: 'accept', stepMs: 0, reason: 'late' }),
    ).toBe('ended');
    expect(completed.cancellation).toBeNull();
  });
});

describe('the simulator’s ordering endpoints', () => {
  let sim: SupplierSimulator;
  let clock = t0;

  beforeAll(async () => {
    sim = await startSupplierSimulator({ behaviour: { stepMs: step }, now: () => clock });
  });
  afterAll(() => sim.stop());

  const base = (key: string) => `${sim.url}/suppliers/${key}`;
  const call = async (method: string, url: string, body?: unknown) => {
    const response = await fetch(url, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: response.status, body: await response.json() };
  };

  it('when an offer is asked for, then it carries its id; with offer_ids=none, then none does', async () => {
    const asked: SupplierRequest = {
      request_id: 'avr_1',
      address: {
        country_code: 'NL',
        postal_code: '1016XA',
        house_number: '206',
        house_number_addition: '',
        street: '',
        city: 'Amsterdam',
        coordinates: null,
      },
      filters: {
        bandwidths: [],
        networks: [],
        contract_terms: [],
        connection_types: [],
        technology_types: [],
      },
    };

    const withIds = await call('POST', `${base('kpn-wba')}/availability`, asked);
    const without = await call('POST', `${base('kpn-wba')}/availability?offer_ids=none`, asked);

    const offers = supplierResponseSchema.parse(withIds.body).offers;
    expect(offers.length).toBeGreaterThan(0);
    expect(offers.every((offer) => /^kpn-wba-[a-z0-9_]+-[a-z0-9_]+-\d+-\d+-\d+$/.test(offer.id ?? ''))).toBe(
      true,
    );
    expect(without.body.offers.map((offer: { id?: string }) => offer.id)).toEqual(
      offers.map(() => undefined),
    );
  });

  it('when an order is placed twice with one external_id, then it is kept once: 201, then 200 with the same order', async () => {
    clock = t0;
    const first = await call('POST', `${base('kpn-wba')}/orders`, request('sor_twice'));
    const again = await call('POST', `${base('kpn-wba')}/orders`, request('sor_twice'));
    const found = await call('GET', `${base('kpn-wba')}/orders?external_id=sor_twice`);
    clock = t0 + step;
    const read = await call('GET', `${base('kpn-wba')}/orders/${first.body.id}`);

    expect([first.status, again.status]).toEqual([201, 200]);
    expect(again.body).toEqual(first.body);
    expect(supplierOrderSchema.parse(first.body).status).toBe('accepted');
    expect(supplierOrderListSchema.parse(found.body).orders).toEqual([first.body]);
    expect([read.status, read.body.status]).toEqual([200, 'in_progress']);
    expect(sim.orders('kpn-wba').filter((each) => each.request.external_id === 'sor_twice')).toHaveLength(1);
  });

  it('when an order is refused, unknown or malformed, then it is answered 422, 404 or 400 and nothing is kept', async () => {
    const kept = sim.orders('colt').length;
    const refused = await call('POST', `${base('colt')}/orders?order=refuse`, {
      ...request('sor_refused'),
      items: [{ id: 'orl_1', offer_id: offerOf('colt'), contract_term_months: 36 }],
    });
    const unknownOffer = await call('POST', `${base('colt')}/orders`, request('sor_unknown'));
    const malformed = await call('POST', `${base('colt')}/orders`, { external_id: 'sor_bad' });
    const missing = await call('GET', `${base('colt')}/orders/so-999`);

    expect([refused.status, refused.body]).toEqual([
      422,
      { error: 'The supplier cannot deliver at this address.' },
    ]);
    expect([unknownOffer.status, unknownOffer.body]).toEqual([
      422,
      { error: `Offer ${offerId} is not offered.` },
    ]);
    expect(malformed.status).toBe(400);
    expect(malformed.body.error).toMatch(/^The order breaks the contract at \/customer_name: /);
    expect([missing.status, missing.body]).toEqual([404, { error: 'Order so-999 was not found.' }]);
    expect(sim.orders('colt')).toHaveLength(kept);
  });

  it('when place=500, then the order is kept although the answer is 500', async () => {
    const answered = await call('POST', `${base('kpn-wba')}/orders?place=500`, request('sor_500'));
    const found = await call('GET', `${base('kpn-wba')}/orders?external_id=sor_500`);

    expect(answered).toEqual({ status: 500, body: { error: 'The order was taken, but the answer failed.' } });
    expect(found.body.orders.map((each: { external_id: string }) => each.external_id)).toEqual(['sor_500']);
  });

  it('when an order is cancelled, then 202 with the cancellation; after it ended, then 409', async () => {
    clock = t0;
    const placed = await call('POST', `${base('eurofiber')}/orders?cancel_step_ms=0`, {
      ...request('sor_cancel', 1),
      items: [{ id: 'orl_1', offer_id: offerOf('eurofiber'), contract_term_months: 36 }],
    });
    const done = await call('POST', `${base('eurofiber')}/orders/${placed.body.id}/cancel?cancel_step_ms=0`, {
      reason: 'The customer moved.',
    });
    const finished = await call('POST', `${base('eurofiber')}/orders`, {
      ...request('sor_finished', 1),
      items: [{ id: 'orl_1', offer_id: offerOf('eurofiber'), contract_term_months: 36 }],
    });
    clock = t0 + 2 * step;
    const late = await call('POST', `${base('eurofiber')}/orders/${finished.body.id}/cancel`, {
      reason: 'Too late.',
    });

    expect([done.status, done.body.status, done.body.items[0].status, done.body.cancellation]).toEqual([
      202,
      'cancelled',
      'cancelled',
      { status: 'done' },
    ]);
    expect(supplierOrderSchema.parse(done.body)).toEqual(done.body);
    expect(late).toEqual({
      status: 409,
      body: { error: `Order ${finished.body.id} has ended; it can no longer be cancelled.` },
    });
    expect(
      sim.exchanges
        .filter((each) => each.sourceKey === 'eurofiber')
        .map((each) => `${each.method} ${each.path} ${each.status}`),
    ).toEqual([
      'POST /orders 201',
      `POST /orders/${placed.body.id}/cancel 202`,
      'POST /orders 201',
      `POST /orders/${finished.body.id}/cancel 409`,
    ]);
  });
});

/** The id of the first demo offer of a supplier, for its first contract term. */
function offerOf(key: string): string {
  const offer = catalog.offers.find((each) => each.source === key);
  if (!offer) throw new Error(`no ${key} offer in the demo catalogue`);
  return simulatedOfferId(key, offer, Number(Object.keys(offer.prices)[0]));
}
