import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ClaimedSupplierOrder } from '../../src/db/rows.js';
import { createHttpOrderStep } from '../../src/ordering/http-step.js';
import { placementSettleMs } from '../../src/ordering/sonata-step.js';
import type { SupplierOrderStep, SupplierOrderStepContext } from '../../src/ordering/worker.js';
import { type Json, startTestServer, type TestServer } from '../helpers/app.js';
import {
  deskCalls,
  httpOrderSetup,
  type MovableSimulator,
  movableSimulator,
} from './http-orders-fixtures.js';

/*
 * The http step on real claims of the store, driven by hand (the order worker is not started): what it does
 * when a placement was marked sent but never arrived, when the reseller cancels before the supplier had the
 * order, when the supplier's order ended before the cancellation, and when the lease is lost before sending.
 */

const OWNER = 'test-step';
const HOUR = 3_600_000;

describe('the http step on claimed supplier orders', () => {
  let server: TestServer;
  let simulator: MovableSimulator;
  const step = createHttpOrderStep({
    now: () => server.clock.now(),
    poll: { initialDelayMs: 10, maxDelayMs: 10 },
  });

  beforeEach(async () => {
    server = await startTestServer({ startWorker: false });
    server.app.worker.start();
    simulator = await movableSimulator();
  });
  afterEach(async () => {
    await server?.close();
    await simulator?.sim.stop();
  });

  const db = () => server.app.services.db;

  /** Claims the order's supplier order (every due one is claimed: each test has just its own). */
  const claim = async (): Promise<ClaimedSupplierOrder> => {
    const [claimed, ...others] = await db().claimSupplierOrders(OWNER, server.clock.now(), 30_000, 10);
    if (!claimed || others.length > 0) throw new Error('expected one due supplier order');
    return claimed;
  };

  const context = (claimed: ClaimedSupplierOrder): SupplierOrderStepContext => ({
    markPosting: () => db().markSupplierOrderPosting(claimed.supplierOrder.id, OWNER, server.clock.now()),
    markCancelPosting: () =>
      db().markSupplierOrderCancelPosting(claimed.supplierOrder.id, OWNER, server.clock.now()),
  });

  /** Records a step as the worker does, releasing the lease. */
  const record = async (claimed: ClaimedSupplierOrder, taken: SupplierOrderStep) => {
    const recorded = await db().recordSupplierOrderProgress({
      ...taken,
      supplierOrderId: claimed.supplierOrder.id,
      owner: OWNER,
      readAt: taken.readAt ?? claimed.supplierOrder.updatedAt,
      now: server.clock.now(),
    });
    if (!recorded) throw new Error('the lease was lost');
    return recorded;
  };

  /** One step of the order's supplier order, claimed, taken and recorded. */
  const runStep = async () => {
    const claimed = await claim();
    const taken = await step(claimed, new AbortController().signal, context(claimed));
    await record(claimed, taken);
    return { claimed, taken };
  };

  /** Places the quote's order through REST; the step may then claim its supplier order. */
  const placeOrder = async (knobs: Record<string, string> = {}) => {
    const setup = await httpOrderSetup(server, simulator.sim, knobs);
    const placed = await setup.tenant.api.post('/orders', { quote_id: setup.quote.id });
    expect(placed.status).toBe(201);
    return {
      ...setup,
      orderId: placed.body.data.id as string,
      lineId: placed.body.data.lines[0].id as string,
    };
  };

  /** Writes `postedAt` as a placement about to be sent would, and gives the lease back: a crash before the POST. */
  const postedButLost = async () => {
    const claimed = await claim();
    expect(await context(claimed).markPosting()).toBe(true);
    const { status, sellerOrderId, sellerState } = claimed.supplierOrder;
    await record(claimed, {
      status,
      sellerOrderId,
      sellerState,
      nextCheckAt: server.clock.now(),
      errorCode: null,
      errorMessage: null,
      lines: [],
    });
    return claimed;
  };

  it('when the order is cancelled before its placement was sent, then the step ends it with the line cancelled and sends nothing', async () => {
    const { tenant, orderId, lineId } = await placeOrder();
    expect((await tenant.api.post(`/orders/${orderId}/cancel`, { reason: 'Wrong address.' })).status).toBe(
      202,
    );

    const { taken } = await runStep();

    expect(taken).toMatchObject({ status: 'ended', nextCheckAt: null, errorCode: null });
    expect(taken.lines).toEqual([
      { lineId, status: 'cancelled', cancellation: { state: 'done', message: null } },
    ]);
    const order = (await tenant.api.get(`/orders/${orderId}`)).body.data;
    expect([order.status, order.lines[0].status, order.lines[0].cancellation]).toEqual([
      'cancelled',
      'cancelled',
      { state: 'done', message: null },
    ]);
    expect(deskCalls(simulator.sim, 'kpn-wba')).toEqual([]);
  });

  it('when a placement was marked sent but never arrived, then it is looked for until the settle time, then sent once', async () => {
    const { orderId } = await placeOrder();
    const lost = await postedButLost();

    const { taken: looked } = await runStep();

    expect([looked.status, looked.sellerOrderId, looked.errorCode]).toEqual([
      'placing',
      null,
      'PLACEMENT_UNCONFIRMED',
    ]);
    expect(deskCalls(simulator.sim, 'kpn-wba')).toEqual(['GET /orders?external_id 200']);

    server.clock.advance(placementSettleMs(lost.source));
    const { taken: sent } = await runStep();

    const [held] = simulator.sim.orders('kpn-wba');
    expect([sent.status, sent.sellerOrderId, sent.sellerState, sent.errorCode]).toEqual([
      'following',
      held?.id,
      'accepted',
      null,
    ]);
    expect(held?.request.external_id).toBe(lost.supplierOrder.id);
    expect(deskCalls(simulator.sim, 'kpn-wba')).toEqual([
      'GET /orders?external_id 200',
      'GET /orders?external_id 200',
      'POST /orders 201',
    ]);
    const [supplierOrder] = await db().listSupplierOrders(orderId);
    expect(supplierOrder?.postedAt?.getTime()).toBeGreaterThan(lost.supplierOrder.updatedAt.getTime());
  });

  it('when the order is cancelled after a placement that never arrived, then once the settle time is over the line is cancelled and nothing is sent', async () => {
    const { tenant, orderId, lineId } = await placeOrder();
    const lost = await postedButLost();
    await tenant.api.post(`/orders/${orderId}/cancel`, { reason: 'Wrong address.' });

    const { taken: looked } = await runStep();
    server.clock.advance(placementSettleMs(lost.source));
    const { taken: cancelled } = await runStep();

    expect(looked.errorCode).toBe('PLACEMENT_UNCONFIRMED');
    expect([cancelled.status, cancelled.lines]).toEqual([
      'ended',
      [{ lineId, status: 'cancelled', cancellation: { state: 'done', message: null } }],
    ]);
    expect(deskCalls(simulator.sim, 'kpn-wba')).toEqual([
      'GET /orders?external_id 200',
      'GET /orders?external_id 200',
    ]);
    expect(simulator.sim.orders('kpn-wba')).toEqual([]);
  });

  it('when the supplier’s order ended before the cancellation, then none is sent and the line shows it rejected', async () => {
    const { tenant, orderId } = await placeOrder({ step_ms: String(HOUR) });
    await runStep();
    simulator.clock.shiftMs += 2 * HOUR;
    await tenant.api.post(`/orders/${orderId}/cancel`, { reason: 'Too late.' });

    const { taken } = await runStep();

    expect([taken.status, taken.sellerState, taken.sellerCancelState]).toEqual([
      'ended',
      'completed',
      'rejected',
    ]);
    const order: Json = (await tenant.api.get(`/orders/${orderId}`)).body.data;
    expect([order.lines[0].status, order.lines[0].cancellation]).toEqual([
      'completed',
      {
        state: 'rejected',
        message: 'The supplier’s order had ended (completed) before it could be cancelled.',
      },
    ]);
    expect(deskCalls(simulator.sim, 'kpn-wba').filter((call) => call.includes('/cancel'))).toEqual([]);
  });

  it('when the cancellation cannot be sent, then the order’s own read is recorded all the same and the open line shows why its cancellation waits', async () => {
    const { tenant, orderId, lineId } = await placeOrder({ step_ms: String(HOUR), cancel: '503' });
    await runStep();
    // The supplier moved its item on since.
    simulator.clock.shiftMs += HOUR;
    await tenant.api.post(`/orders/${orderId}/cancel`, { reason: 'Wrong address.' });

    const { taken } = await runStep();

    const [held] = simulator.sim.orders('kpn-wba');
    const failure = `The supplier answered 503 to the order ${held?.id} cancellation.`;
    const notice = {
      code: 'CANCELLATION_UNAVAILABLE',
      message: `The cancellation cannot go on at the supplier: ${failure} It is tried again.`,
    };
    expect([taken.status, taken.sellerState, taken.errorCode, taken.errorMessage]).toEqual([
      'following',
      'in_progress',
      'UPSTREAM_5XX',
      failure,
    ]);
    expect(taken.sellerCancelState).toBeUndefined();
    expect(taken.lines.map((line) => [line.lineId, line.status, line.supplierStatus, line.notice])).toEqual([
      [lineId, 'in_progress', 'in_progress', notice],
    ]);
    const order: Json = (await tenant.api.get(`/orders/${orderId}`)).body.data;
    expect([order.lines[0].status, order.lines[0].cancellation, order.lines[0].notice]).toEqual([
      'in_progress',
      { state: 'requested', message: null },
      notice,
    ]);
    expect(deskCalls(simulator.sim, 'kpn-wba').filter((call) => call.includes('/cancel'))).toEqual(
      Array(3).fill(`POST /orders/${held?.id}/cancel 503`),
    );
  });

  it('when the lease is lost before the placement is sent, then nothing is sent and the order is due again at once', async () => {
    await placeOrder();
    const claimed = await claim();
    server.clock.freeze();

    const taken = await step(claimed, new AbortController().signal, {
      markPosting: async () => false,
      markCancelPosting: async () => false,
    });

    expect([taken.status, taken.nextCheckAt?.getTime(), taken.lines]).toEqual([
      'placing',
      taken.readAt?.getTime(),
      [],
    ]);
    expect(deskCalls(simulator.sim, 'kpn-wba')).toEqual([]);
  });
});
