import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { QuoteLineRow } from '../../src/db/rows.js';
import { applyMarkup } from '../../src/gathering/pricing.js';
import { type SonataSeller, startSonataSeller } from '../../src/gathering/simulator/sonata/server.js';
import type { SourceOffer } from '../../src/gathering/sources/types.js';
import { completed, examplePlaces, markupPlan, registerSonata } from '../gathering/sonata-gateway.js';
import { catalogueOffers, sellerSettings } from '../gathering/sources/mef-sonata/fixtures.js';
import {
  exampleInstallPlace,
  sellerAnswers,
  withOrderTerms,
} from '../gathering/sources/mef-sonata/order-terms-fixtures.js';
import {
  contractExampleBatch,
  type Json,
  startTestServer,
  type TestServer,
  type TestTenant,
} from '../helpers/app.js';
import { updateStoredRows } from '../helpers/store.js';

/*
 * Issue 35, item 1: a quote line made from a product a `mef-sonata` source gathered snapshots how to order
 * it — the seller's POQ and quote (item) ids, the quoted term, offering, configuration, place and validity —
 * and its purchase prices, with its sale prices; whether it is made with the quote (`POST /quotes`) or added
 * to it (`POST /quotes/{id}/products`). The product changing afterwards does not change the line.
 */

/** The offer (with the order terms it should keep) a REST product of the request came from. */
function offerOf(offers: readonly SourceOffer[], product: Json): SourceOffer {
  const matching = offers.filter(
    (offer) =>
      offer.technologyType === product.technology_type &&
      offer.connectionType === product.connection_type &&
      offer.downloadKbps === product.bandwidth.download &&
      offer.uploadKbps === product.bandwidth.upload &&
      offer.contractTermMonths === product.contract_term,
  );
  expect(matching, `the offer of ${JSON.stringify(product)}`).toHaveLength(1);
  return matching[0] as SourceOffer;
}

/** What a quote line made from `product` keeps: its source, prices (25 % / 10 % markup) and order terms. */
const snapshotOf = (product: Json, offer: SourceOffer, sourceId: string) => ({
  kind: 'availability_request_product',
  productId: product.id,
  network: 'KPN',
  contractTermMonths: offer.contractTermMonths,
  mrcMinor: applyMarkup(offer.purchaseMrcMinor, 2500),
  nrcMinor: applyMarkup(offer.purchaseNrcMinor, 1000),
  currency: 'EUR',
  sourceId,
  purchaseMrcMinor: offer.purchaseMrcMinor,
  purchaseNrcMinor: offer.purchaseNrcMinor,
  orderTerms: offer.orderTerms,
});

const picked = (line: QuoteLineRow) => ({
  kind: line.kind,
  productId: line.productId,
  network: line.network,
  contractTermMonths: line.contractTermMonths,
  mrcMinor: line.mrcMinor,
  nrcMinor: line.nrcMinor,
  currency: line.currency,
  sourceId: line.sourceId,
  purchaseMrcMinor: line.purchaseMrcMinor,
  purchaseNrcMinor: line.purchaseNrcMinor,
  orderTerms: line.orderTerms,
});

describe('quote lines of Sonata products', () => {
  let seller: SonataSeller;
  let server: TestServer;
  let admin: TestTenant;
  let kpnId: string;

  beforeAll(async () => {
    seller = await startSonataSeller({ behaviour: { stepMs: 20 } });
    server = await startTestServer();
    admin = await server.tenant({ demoCatalog: false, roles: ['instance_admin', 'connectivity_check'] });
    await markupPlan(admin);
    kpnId = await registerSonata(
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

  it('when a quote is made with a Sonata product and another is added, then each line keeps its order terms and purchase prices', async () => {
    const created = await admin.api.post('/availability-requests', [contractExampleBatch[0]]);
    const request = await completed(admin, created.body.data[0].id);
    const offers = withOrderTerms(
      catalogueOffers('kpn-wba', 'KPN', examplePlaces[0] as (typeof examplePlaces)[number]),
      sellerAnswers(seller.exchanges, request.id),
      exampleInstallPlace,
    );
    const [first, second] = request.products as Json[];
    expect(request.products.length).toBeGreaterThan(1);
    const customer = (await admin.api.post('/customers', { name: 'Sonata Quote B.V.' })).body.data.id;

    const quote = await admin.api.post('/quotes', {
      name: 'Two lines',
      customer_id: customer,
      availability_request_product_ids: [first.id],
    });
    expect(quote.status).toBe(201);
    const added = await admin.api.post(`/quotes/${quote.body.data.id}/products`, {
      availability_request_product_ids: [second.id],
    });
    expect(added.status).toBe(200);

    const expected = [
      snapshotOf(first, offerOf(offers, first), kpnId),
      snapshotOf(second, offerOf(offers, second), kpnId),
    ];
    expect(expected.map((line) => line.orderTerms?.kind)).toEqual(['mef-sonata', 'mef-sonata']);
    const stored = await server.app.services.db.findQuote(admin.instanceId, quote.body.data.id);
    expect(stored?.lines.map(picked)).toEqual(expected);
    expect(added.body.data.products.map((line: Json) => [line.id, line.mrc, line.nrc])).toEqual(
      (stored?.lines ?? []).map((line) => [line.id, line.mrcMinor / 100, line.nrcMinor / 100]),
    );

    // A snapshot: the products changing afterwards leaves the lines as they were.
    for (const product of [first, second]) {
      await updateStoredRows(
        server.app.services.db,
        'availabilityRequestProducts',
        { purchaseMrcMinor: 1, purchaseNrcMinor: 2, orderTerms: null },
        { id: product.id },
      );
    }
    const again = await server.app.services.db.findQuote(admin.instanceId, quote.body.data.id);
    expect(again?.lines.map(picked)).toEqual(expected);
  });
});
