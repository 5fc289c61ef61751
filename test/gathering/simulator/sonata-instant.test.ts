import { describe, expect, test } from 'vitest';
import {
  type Candidate,
  instantSellerPerTest,
  type Json,
  LIJNBAANSGRACHT,
  offers,
  poqBody,
  quoteBody,
  tele2Candidates,
} from './sonata-instant-fixtures.js';

/* What an instant seller offers and at what price: its catalogue's offerings, their ids, and its terms. */

const { call, restartSeller } = instantSellerPerTest();

describe('an instant Sonata seller', () => {
  test('when a POQ and a Quote ask instantly about the contract example address, then every Tele2 offering qualifies green and is priced from the catalogue', async () => {
    const candidates = tele2Candidates();
    expect(candidates).toEqual([
      { offering: 'basic-internet-access-vdsl-shared', download: 50_000, upload: 5_000 },
      { offering: 'basic-internet-access-vdsl-shared', download: 100_000, upload: 10_000 },
      { offering: 'basic-internet-access-ftth-shared', download: 100_000, upload: 100_000 },
      { offering: 'basic-internet-access-ftth-shared', download: 500_000, upload: 500_000 },
      { offering: 'basic-internet-access-ftth-shared', download: 1_000_000, upload: 1_000_000 },
    ]);
    const poq = await call(
      'tele2',
      'instant',
      'poq',
      'POST',
      '/productOfferingQualification',
      poqBody(candidates, LIJNBAANSGRACHT, true),
    );
    expect(poq.status).toBe(201);
    expect(poq.body.state).toBe('done.ready');
    expect(poq.body.externalId).toBe('avr_test');
    expect((poq.body.relatedContactInformation as { role: string }[]).map((c) => c.role)).toEqual([
      'buyerContactInformation',
      'sellerContactInformation',
    ]);
    const items = poq.body.productOfferingQualificationItem as Record<string, unknown>[];
    expect(
      items.map((item) => [item.id, item.state, item.serviceabilityConfidence, item.installationInterval]),
    ).toEqual(
      ['1', '2', '3', '4', '5'].map((id) => [
        id,
        'done.ready',
        'green',
        { amount: 10, units: 'calendarDays' },
      ]),
    );

    const quote = await call(
      'tele2',
      'instant',
      'quote',
      'POST',
      '/quote',
      quoteBody(candidates, LIJNBAANSGRACHT, 36, true),
    );
    expect(quote.status).toBe(201);
    expect([quote.body.state, quote.body.quoteLevel]).toEqual(['approved.orderable', 'firm']);
    const shared = {
      state: 'approved.orderable',
      connectionType: 'SHARED',
      contractTermMonths: 36,
      currency: 'EUR',
    };
    expect(offers('tele2', quote.body)).toEqual([
      {
        ...shared,
        technologyType: 'VDSL',
        downloadKbps: 50_000,
        uploadKbps: 5_000,
        purchaseMrcMinor: 3995,
        purchaseNrcMinor: 7000,
      },
      {
        ...shared,
        technologyType: 'VDSL',
        downloadKbps: 100_000,
        uploadKbps: 10_000,
        purchaseMrcMinor: 4845,
        purchaseNrcMinor: 7500,
      },
      {
        ...shared,
        technologyType: 'FTTH',
        downloadKbps: 100_000,
        uploadKbps: 100_000,
        purchaseMrcMinor: 4595,
        purchaseNrcMinor: 8000,
      },
      {
        ...shared,
        technologyType: 'FTTH',
        downloadKbps: 500_000,
        uploadKbps: 500_000,
        purchaseMrcMinor: 6395,
        purchaseNrcMinor: 9000,
      },
      {
        ...shared,
        technologyType: 'FTTH',
        downloadKbps: 1_000_000,
        uploadKbps: 1_000_000,
        purchaseMrcMinor: 8195,
        purchaseNrcMinor: 9500,
      },
    ]);
    const price = (quote.body.quoteItem as Json[])[0].quoteItemPrice;
    expect(price).toEqual([
      {
        name: 'Monthly charge',
        priceType: 'recurring',
        recurringChargePeriod: 'month',
        price: {
          dutyFreeAmount: { unit: 'EUR', value: 39.95 },
          taxRate: 21,
          taxIncludedAmount: { unit: 'EUR', value: 48.34 },
        },
      },
      {
        name: 'One-off installation charge',
        priceType: 'nonRecurring',
        price: {
          dutyFreeAmount: { unit: 'EUR', value: 70 },
          taxRate: 21,
          taxIncludedAmount: { unit: 'EUR', value: 84.7 },
        },
      },
    ]);
  });

  test('when the bare offering id basic-internet-access is asked without buyerId or sellerId, then the default seller qualifies and prices it across its technologies', async () => {
    const bare = { offering: 'basic-internet-access', download: 100_000, upload: 100_000 };
    const poq = await call(
      'tele2',
      'instant',
      'poq',
      'POST',
      '/productOfferingQualification',
      poqBody([bare, { ...bare, download: 20_000, upload: 20_000 }], LIJNBAANSGRACHT, true),
    );
    expect(
      (poq.body.productOfferingQualificationItem as Json[]).map((item) => [
        item.product.productOffering.id,
        item.serviceabilityConfidence,
      ]),
    ).toEqual([
      ['basic-internet-access', 'green'],
      ['basic-internet-access', 'red'],
    ]);

    const quote = await call(
      'tele2',
      'instant',
      'quote',
      'POST',
      '/quote',
      quoteBody([bare], LIJNBAANSGRACHT, 36, true),
    );
    // Tele2's one 100/100 offer at the address is FTTH (shared): its catalogue price, 45.95 a month.
    expect(quote.body.state).toBe('approved.orderable');
    const [item] = quote.body.quoteItem as Json[];
    expect(item.product.productOffering.id).toBe('basic-internet-access');
    expect(item.quoteItemPrice[0].price.dutyFreeAmount).toEqual({ unit: 'EUR', value: 45.95 });
  });

  test('when the seller is started with another offering prefix, then its offerings carry that prefix and the default ids are unknown', async () => {
    await restartSeller({ offeringPrefix: 'bia' });
    const candidate = (offering: string) => ({ offering, download: 100_000, upload: 100_000 });
    const poq = await call(
      'tele2',
      'instant',
      'poq',
      'POST',
      '/productOfferingQualification',
      poqBody([candidate('bia-ftth-shared'), candidate('bia')], LIJNBAANSGRACHT, true),
    );
    expect(
      (poq.body.productOfferingQualificationItem as Json[]).map((item) => item.serviceabilityConfidence),
    ).toEqual(['green', 'green']);
    const unknown = await call(
      'tele2',
      'instant',
      'poq',
      'POST',
      '/productOfferingQualification',
      poqBody([candidate('basic-internet-access-ftth-shared')], LIJNBAANSGRACHT, true),
    );
    expect([unknown.status, unknown.body]).toEqual([422, expect.any(Array)]);
  });

  test('when a term the seller does not offer is asked, then the closest shorter one is quoted as an alternate', async () => {
    const [first] = tele2Candidates();
    const quote = await call(
      'tele2',
      'instant',
      'quote',
      'POST',
      '/quote',
      quoteBody([first as Candidate], LIJNBAANSGRACHT, 30, true),
    );
    expect(quote.body.state).toBe('approved.orderableAlternate');
    expect(offers('tele2', quote.body)[0]).toMatchObject({
      state: 'approved.orderableAlternate',
      contractTermMonths: 24,
      purchaseMrcMinor: 4245,
    });
  });
});
