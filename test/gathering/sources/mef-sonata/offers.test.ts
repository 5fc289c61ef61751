import { describe, expect, it } from 'vitest';
import {
  adapterFor,
  catalogueOffers,
  configuration,
  exampleAddress,
  queryOf,
  requestRow,
  seller,
  sellerSettings,
  sent,
  simulatedSellerPerTest,
  sorted,
  sourceRow,
} from './fixtures.js';
import { exampleInstallPlace, rollingTerm, sellerAnswers } from './order-terms-fixtures.js';

/*
 * docs/mef-sonata-mapping.md §4 against the simulator's sellers: what the adapter makes of the answers
 * (src/gathering/sources/mef-sonata/offers.ts, outcome.ts). Rows the simulator cannot produce are in
 * answers.test.ts.
 */

simulatedSellerPerTest();

describe('§4 answers → offers', () => {
  it('when the deferred seller cannot qualify in time (A3), then SONATA_UNABLE_TO_PROVIDE, not "not deliverable", and no Quote', async () => {
    const source = sourceRow();
    const adapter = adapterFor(
      sellerSettings(seller, 'kpn-wba', 'deferred', 'deferred', { query: { outcome: 'unableToProvide' } }),
    );

    const gathering = await adapter.gather(queryOf(source));
    const result = adapter.fetchOffers(queryOf(source));

    expect(gathering.offers).toEqual([]);
    expect(gathering.poq?.state).toBe('done.unableToProvide');
    expect(gathering.quote).toBeNull();
    await expect(result).rejects.toMatchObject({
      code: 'SONATA_UNABLE_TO_PROVIDE',
      message: expect.stringMatching(
        /^The seller could not qualify the address within the requested time \(POQ [0-9a-f-]{36} done\.unableToProvide\)\.$/,
      ),
      retryable: false,
    });
    expect(sent('quote')).toEqual([]);
  });

  it('when no offering is deliverable at the address (A5 everywhere), then SONATA_NOT_SERVICEABLE names the red count', async () => {
    const source = sourceRow({ key: 'eurofiber', network: 'Eurofiber' });
    const adapter = adapterFor(sellerSettings(seller, 'eurofiber', 'instant', 'instant'));
    const london = exampleAddress({
      street: 'Northumberland Avenue',
      houseNumber: '1',
      houseNumberAddition: '',
      postalCode: 'WC2N5BW',
      city: 'London',
      countryCode: 'GB',
      latitude: 51.5069,
      longitude: -0.1256,
    });

    const result = adapter.fetchOffers(queryOf(source, requestRow({ contractTerms: [12] }), london));

    const asked = sellerSettings(seller, 'eurofiber', 'instant', 'instant').productOfferings[0]?.bandwidths
      .length;
    await expect(result).rejects.toMatchObject({
      code: 'SONATA_NOT_SERVICEABLE',
      message: `The seller cannot deliver any of the ${asked} configurations asked at this address (${asked} red).`,
    });
    expect(sent('quote')).toEqual([]);
  });

  it('when the quote items come back without a price (B4/B7), then SONATA_NO_PRICE and each is recorded', async () => {
    const source = sourceRow();
    const request = requestRow({
      technologyTypes: ['FTTH'],
      bandwidths: [{ download: 100_000, upload: 100_000 }],
      contractTerms: [12, 36],
    });
    const adapter = adapterFor(
      sellerSettings(seller, 'kpn-wba', 'instant', 'instant', { query: { price: 'none' } }),
    );

    const gathering = await adapter.gather(queryOf(source, request));
    const result = adapter.fetchOffers(queryOf(source, request));

    expect(gathering.offers).toEqual([]);
    expect(
      gathering.declined.map((item) => [item.stage, item.reason, item.contractTermMonths, item.detail]),
    ).toEqual([
      [
        'quote',
        'noPrice',
        12,
        'quote item approved.orderable with 0 monthly recurring prices (exactly one is needed)',
      ],
      [
        'quote',
        'noPrice',
        36,
        'quote item approved.orderable with 0 monthly recurring prices (exactly one is needed)',
      ],
    ]);
    await expect(result).rejects.toMatchObject({
      code: 'SONATA_NO_PRICE',
      message: expect.stringMatching(
        /^Quote [0-9a-f-]{36} \(approved\.orderable\) priced none of its 2 items\.$/,
      ),
    });
  });

  it('when the seller quotes another term than asked (B10), then the offer carries the seller’s term', async () => {
    const source = sourceRow();
    const request = requestRow({
      technologyTypes: ['FTTH'],
      bandwidths: [{ download: 100_000, upload: 100_000 }],
      contractTerms: [18],
    });
    const adapter = adapterFor(sellerSettings(seller, 'kpn-wba', 'instant', 'instant'));

    const gathering = await adapter.gather(queryOf(source, request));

    expect(gathering.quote?.state).toBe('approved.orderableAlternate');
    const expected = catalogueOffers('kpn-wba', 'KPN', {
      countryCode: 'NL',
      postalCode: '1016XA',
      city: 'Amsterdam',
    }).filter(
      (offer) =>
        offer.technologyType === 'FTTH' && offer.downloadKbps === 100_000 && offer.contractTermMonths === 12,
    );
    expect(expected).toHaveLength(1);
    const answered = sellerAnswers(seller.exchanges);
    expect(gathering.offers).toEqual(
      expected.map((offer) => ({
        ...offer,
        // Ordered with the seller's 12 months (MEF 123 R38), not the 18 asked.
        orderTerms: {
          kind: 'mef-sonata',
          poqId: gathering.poq?.id,
          poqItemId: '1',
          quoteId: gathering.quote?.id,
          quoteItemId: '1',
          productOfferingId: 'basic-internet-access-ftth-shared',
          itemTerm: rollingTerm(12),
          productConfiguration: configuration(100_000, 100_000, 'SHARED'),
          place: [exampleInstallPlace],
          validFor: {
            startDateTime: null,
            endDateTime: (answered.quote.validFor as { endDateTime: string }).endDateTime,
          },
        },
      })),
    );
    expect([answered.poq.id, answered.quote.id]).toEqual([gathering.poq?.id, gathering.quote?.id]);
  });

  it('when a Tele2 seller is the source of another network name (B13/B14), then network is the source’s and the types are the offering’s', async () => {
    const source = sourceRow({ key: 'tele2', network: 'Tele2 Zakelijk' });
    const adapter = adapterFor(sellerSettings(seller, 'tele2', 'instant', 'instant'));

    const offers = await adapter.fetchOffers(queryOf(source, requestRow({ contractTerms: [24] })));

    expect(
      sorted(offers).map((o) => [
        o.network,
        o.technologyType,
        o.connectionType,
        o.downloadKbps,
        o.uploadKbps,
      ]),
    ).toEqual([
      ['Tele2 Zakelijk', 'FTTH', 'SHARED', 100_000, 100_000],
      ['Tele2 Zakelijk', 'FTTH', 'SHARED', 500_000, 500_000],
      ['Tele2 Zakelijk', 'FTTH', 'SHARED', 1_000_000, 1_000_000],
      ['Tele2 Zakelijk', 'VDSL', 'SHARED', 50_000, 5_000],
      ['Tele2 Zakelijk', 'VDSL', 'SHARED', 100_000, 10_000],
    ]);
  });
});
