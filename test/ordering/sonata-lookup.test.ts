import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClaimedSupplierOrder } from '../../src/db/rows.js';
import { type SonataSeller, startSonataSeller } from '../../src/gathering/simulator/sonata/server.js';
import { SonataClient } from '../../src/gathering/sources/mef-sonata/client.js';
import { createMefSonataSource } from '../../src/gathering/sources/mef-sonata/source.js';
import { storedSonataSettings } from '../../src/gathering/sources/mef-sonata/stored.js';
import { SonataOrdering } from '../../src/ordering/mef-sonata/ordering-client.js';
import { createSonataOrderStep, placementSettleMs } from '../../src/ordering/sonata-step.js';
import type { SupplierOrderStep, SupplierOrderStepContext } from '../../src/ordering/worker.js';
import { graphqlSettings, registerSonata } from '../gathering/sonata-gateway.js';
import { sellerSettings } from '../gathering/sources/mef-sonata/fixtures.js';
import { startTestServer, type TestServer, type TestTenant } from '../helpers/app.js';
import { orderCalls, sonataQuote } from './sonata-orders-fixtures.js';

/*
 * Issue 49, item 1: `GET /productOrder?externalId=…` is how an order that may have reached the seller is
 * found again (MEF 123); while it fails, nothing is sent again. The Sonata step on real claims of the store,
 * driven by hand (the order worker is not started): a placement marked sent but lost, then a seller whose
 * look-up fails (the simulator's `mode=404` on every call), then one that answers it again.
 */

const OWNER = 'test-step';
const UPDATE = `mutation ($id: ID!, $sonata: SonataSettingsInput!) {
  updateSonataSource(id: $id, sonata: $sonata) { source { id } }
}`;

describe('the Sonata step while the seller cannot look an order up', () => {
  let seller: SonataSeller;
  let server: TestServer;
  let admin: TestTenant;
  let sourceId: string;

  beforeAll(async () => {
    seller = await startSonataSeller({ behaviour: { stepMs: 20 } });
    server = await startTestServer({ startWorker: false });
    server.app.worker.start();
    admin = await server.tenant({ demoCatalog: false, roles: ['instance_admin', 'connectivity_check'] });
    sourceId = await registerSonata(
      admin,
      'kpn-wba',
      'KPN',
      sellerSettings(seller, 'kpn-wba', 'instant', 'instant'),
    );
  });
  afterAll(async () => {
    await server?.close();
    await seller?.stop();
  });

  const db = () => server.app.services.db;
  const now = () => server.clock.now();
  const adapter = createMefSonataSource({ now, settingsOf: storedSonataSettings });
  const step = createSonataOrderStep({
    ordering: new SonataOrdering(new SonataClient(adapter.policies, adapter.tokens, now)),
    now,
    instanceCode: async () => 'ACM',
  });

  const claim = async (): Promise<ClaimedSupplierOrder> => {
    const [claimed, ...others] = await db().claimSupplierOrders(OWNER, now(), 30_000, 10);
    if (!claimed || others.length > 0) throw new Error('expected one due supplier order');
    return claimed;
  };
  const context = (claimed: ClaimedSupplierOrder): SupplierOrderStepContext => ({
    markPosting: () => db().markSupplierOrderPosting(claimed.supplierOrder.id, OWNER, now()),
    markCancelPosting: () => db().markSupplierOrderCancelPosting(claimed.supplierOrder.id, OWNER, now()),
  });
  const record = async (claimed: ClaimedSupplierOrder, taken: SupplierOrderStep) => {
    const recorded = await db().recordSupplierOrderProgress({
      ...taken,
      supplierOrderId: claimed.supplierOrder.id,
      owner: OWNER,
      readAt: taken.readAt ?? claimed.supplierOrder.updatedAt,
      now: now(),
    });
    if (!recorded) throw new Error('the lease was lost');
    return recorded;
  };
  /** One step, claimed (as due `advanceMs` later), taken and recorded. */
  const runStep = async (advanceMs: number) => {
    server.clock.advance(advanceMs);
    const claimed = await claim();
    const taken = await step(claimed, new AbortController().signal, context(claimed));
    await record(claimed, taken);
    return { claimed, taken };
  };
  /** The seller's knobs of the source (`query`), set through the API. */
  const knobs = async (query: Record<string, string>) => {
    const settings = sellerSettings(seller, 'kpn-wba', 'instant', 'instant', { query });
    const updated = await admin.api.graphql(UPDATE, { id: sourceId, sonata: graphqlSettings(settings) });
    expect(updated.errors).toBeUndefined();
  };

  it('when a placement may have been sent and the look-up fails, then the line shows why it waits and nothing is sent until the look-up answers', async () => {
    const quote = await sonataQuote(admin, ['KPN']);
    const placed = await admin.api.post('/orders', { quote_id: quote.id });
    const orderId: string = placed.body.data.id;
    const lineId: string = placed.body.data.lines[0].id;
    server.clock.freeze();
    // A placement about to be sent, then lost with its process.
    const lost = await claim();
    expect(await context(lost).markPosting()).toBe(true);
    const postedAt = now();
    await record(lost, {
      status: 'placing',
      sellerOrderId: null,
      sellerState: null,
      nextCheckAt: now(),
      errorCode: null,
      errorMessage: null,
      lines: [],
    });
    await knobs({ mode: '404' });

    const { taken: failed } = await runStep(1);

    const notice = {
      code: 'ORDER_LOOKUP_UNAVAILABLE',
      message: `The order was sent at ${postedAt.toISOString()} and may be at the supplier, but it cannot be looked up: it answers GET /productOrder?externalId=… with 404; it is not sent again until the supplier answers the look-up, and it is asked again.`,
    };
    expect([failed.status, failed.errorCode, failed.lines]).toEqual([
      'placing',
      'SONATA_NOT_FOUND',
      [{ lineId, notice }],
    ]);
    // A final failure of a look-up: tried again at the longest back-off (the source's 40 ms).
    expect(failed.nextCheckAt?.getTime()).toBe(now().getTime() + 40);
    const shown = (await admin.api.get(`/orders/${orderId}`)).body.data.lines[0];
    expect([shown.status, shown.notice]).toEqual(['pending', notice]);

    await knobs({});
    const { taken: looked } = await runStep(40);

    expect([looked.status, looked.errorCode, looked.lines]).toEqual([
      'placing',
      'PLACEMENT_UNCONFIRMED',
      [{ lineId, notice: null }],
    ]);
    expect((await admin.api.get(`/orders/${orderId}`)).body.data.lines[0].notice).toBeNull();
    expect(orderCalls(seller, 'kpn-wba')).toEqual(['GET /productOrder 404', 'GET /productOrder 200']);

    const { claimed, taken: sent } = await runStep(placementSettleMs(lost.source));

    expect([sent.status, sent.errorCode, sent.sellerState]).toEqual(['following', null, 'acknowledged']);
    expect(orderCalls(seller, 'kpn-wba')).toEqual([
      'GET /productOrder 404',
      'GET /productOrder 200',
      'GET /productOrder 200',
      'POST /productOrder 201',
    ]);
    expect(claimed.supplierOrder.postedAt).toEqual(postedAt);
  });
});
