import { describe, expect, it } from 'vitest';
import {
  adapterFor,
  buyerContact,
  catalogueOffers,
  configuration,
  coordinateAddress,
  exampleAddress,
  now,
  queryOf,
  requestRow,
  seller,
  sellerSettings,
  sent,
  simulatedSellerPerTest,
  sorted,
  sourceRow,
} from './fixtures.js';
import {
  coordinateInstallPlace,
  exampleInstallPlace,
  rollingTerm,
  sellerAnswers,
  withOrderTerms,
} from './order-terms-fixtures.js';

/*
 * docs/mef-sonata-mapping.md, row by row, against the simulator's sellers: where the adapter sends (§1) and
 * the POQ and Quote it sends (§2, §3; src/gathering/sources/mef-sonata/requests.ts). Which candidates it
 * asks about (§2b) is in requests-candidates.test.ts, what it makes of the answers (§4) in offers.test.ts.
 */

const contact = { role: 'buyerContactInformation', ...buyerContact };

simulatedSellerPerTest();

describe('§1 where the seller is', () => {
  it('when the base URL has a path and a query, then the documents’ base paths go after its path and its query stays; buyerId and sellerId only when configured', async () => {
    const source = sourceRow();
    const request = requestRow({
      technologyTypes: ['FTTH'],
      bandwidths: [{ download: 100_000, upload: 100_000 }],
      contractTerms: [36],
    });
    const plain = adapterFor(
      sellerSettings(seller, 'kpn-wba', 'instant', 'instant', { query: { latency: '0' } }),
    );
    const identified = adapterFor(
      sellerSettings(seller, 'kpn-wba', 'instant', 'instant', {
        buyerId: 'reseller-17',
        sellerId: 'kpn-wba',
      }),
    );

    await plain.fetchOffers(queryOf(source, request));
    await identified.fetchOffers(queryOf(sourceRow(), request));

    expect(seller.exchanges.map((e) => [e.method, e.path, e.query])).toEqual([
      [
        'POST',
        '/sonata/kpn-wba/instant/mefApi/sonata/productOfferingQualification/v7/productOfferingQualification',
        { latency: '0' },
      ],
      ['POST', '/sonata/kpn-wba/instant/mefApi/sonata/quoteManagement/v8/quote', { latency: '0' }],
      [
        'POST',
        '/sonata/kpn-wba/instant/mefApi/sonata/productOfferingQualification/v7/productOfferingQualification',
        { buyerId: 'reseller-17', sellerId: 'kpn-wba' },
      ],
      [
        'POST',
        '/sonata/kpn-wba/instant/mefApi/sonata/quoteManagement/v8/quote',
        { buyerId: 'reseller-17', sellerId: 'kpn-wba' },
      ],
    ]);
  });
});

describe('§2 the POQ request and §3 the Quote request', () => {
  it('when one FTTH candidate is asked instantly, then the POQ and the Quote are exactly P1–P20 and Q1–Q11', async () => {
    const source = sourceRow();
    const request = requestRow({
      technologyTypes: ['FTTH'],
      bandwidths: [{ download: 100_000, upload: 100_000 }],
      contractTerms: [36],
    });
    const adapter = adapterFor(sellerSettings(seller, 'kpn-wba', 'instant', 'instant'));

    const offers = await adapter.fetchOffers(queryOf(source, request));

    const product = {
      productOffering: { id: 'basic-internet-access-ftth-shared' },
      productConfiguration: configuration(100_000, 100_000, 'SHARED'),
      place: [exampleInstallPlace],
    };
    expect(sent('poq')).toEqual([
      {
        instantSyncQualification: true,
        externalId: request.id,
        provideAlternative: false,
        relatedContactInformation: [contact],
        productOfferingQualificationItem: [{ id: '1', action: 'add', product }],
      },
    ]);
    const poqId = (seller.exchanges[0]?.responseBody as { id: string } | undefined)?.id;
    const quote = seller.exchanges[1]?.responseBody as { id: string; validFor: { endDateTime: string } };
    expect(sent('quote')).toEqual([
      {
        instantSyncQuote: true,
        buyerRequestedQuoteLevel: 'firm',
        externalId: request.id,
        relatedContactInformation: [contact],
        quoteItem: [
          {
            id: '1',
            action: 'add',
            product,
            requestedQuoteItemTerm: {
              duration: { amount: 36, units: 'calendarMonths' },
              endOfTermAction: 'roll',
              rollInterval: { amount: 1, units: 'calendarMonths' },
              name: '36 months',
            },
            productOfferingQualificationItem: { productOfferingQualificationId: poqId, id: '1' },
          },
        ],
      },
    ]);
    const expected = catalogueOffers('kpn-wba', 'KPN', {
      countryCode: 'NL',
      postalCode: '1016XA',
      city: 'Amsterdam',
    }).filter(
      (offer) =>
        offer.technologyType === 'FTTH' && offer.downloadKbps === 100_000 && offer.contractTermMonths === 36,
    );
    expect(expected).toHaveLength(1);
    // What ordering it later needs: what was asked and what the seller answered, item by item.
    expect(offers).toEqual(
      expected.map((offer) => ({
        ...offer,
        orderTerms: {
          kind: 'mef-sonata',
          poqId,
          poqItemId: '1',
          quoteId: quote.id,
          quoteItemId: '1',
          productOfferingId: product.productOffering.id,
          itemTerm: rollingTerm(36),
          productConfiguration: product.productConfiguration,
          place: product.place,
          validFor: { startDateTime: null, endDateTime: quote.validFor.endDateTime },
        },
      })),
    );
  });

  it('when the source is deferred, then P1/Q1 are false and P2/Q3 ask for completion by now + timeoutMs', async () => {
    const source = sourceRow({ timeoutMs: 4_000 });
    const request = requestRow({
      technologyTypes: ['FTTH'],
      bandwidths: [{ download: 100_000, upload: 100_000 }],
      contractTerms: [36],
    });
    const adapter = adapterFor(sellerSettings(seller, 'kpn-wba', 'deferred', 'deferred'));

    await adapter.fetchOffers(queryOf(source, request));

    const by = new Date(now.getTime() + 4_000).toISOString();
    expect(sent('poq')).toEqual([
      expect.objectContaining({ instantSyncQualification: false, requestedPOQCompletionDate: by }),
    ]);
    expect(sent('quote')).toEqual([
      expect.objectContaining({ instantSyncQuote: false, requestedQuoteCompletionDate: by }),
    ]);
  });

  it('when the offering is DIA, then P12 commits the full rate (cir = maxIr)', async () => {
    const source = sourceRow({ key: 'eurofiber', network: 'Eurofiber' });
    const request = requestRow({ bandwidths: [{ download: 200_000, upload: 200_000 }], contractTerms: [12] });
    const adapter = adapterFor(sellerSettings(seller, 'eurofiber', 'instant', 'instant'));

    const offers = await adapter.fetchOffers(queryOf(source, request));

    const [poq] = sent('poq') as { productOfferingQualificationItem: { product: unknown }[] }[];
    expect(poq?.productOfferingQualificationItem.map((item) => item.product)).toEqual([
      {
        productOffering: { id: 'basic-internet-access-fiber-dia' },
        productConfiguration: configuration(200_000, 200_000, 'DIA'),
        place: [exampleInstallPlace],
      },
    ]);
    expect(
      offers.map((o) => [
        o.network,
        o.technologyType,
        o.connectionType,
        o.downloadKbps,
        o.contractTermMonths,
      ]),
    ).toEqual([['Eurofiber', 'FIBER', 'DIA', 200_000, 12]]);
  });

  it('when the address has no addition, then P18 is left out rather than sent empty', async () => {
    const source = sourceRow();
    const request = requestRow({
      technologyTypes: ['FTTH'],
      bandwidths: [{ download: 100_000, upload: 100_000 }],
      contractTerms: [36],
    });
    const adapter = adapterFor(sellerSettings(seller, 'kpn-wba', 'instant', 'instant'));

    await adapter.fetchOffers(queryOf(source, request, exampleAddress({ houseNumberAddition: '' })));

    const [poq] = sent('poq') as { productOfferingQualificationItem: { product: { place: unknown[] } }[] }[];
    const { streetNrSuffix: _left, ...withoutAddition } = exampleInstallPlace;
    expect(poq?.productOfferingQualificationItem[0]?.product.place).toEqual([withoutAddition]);
  });

  it('when the request gave only coordinates, then P21 sends a WGS 84 point and the seller qualifies its city', async () => {
    const source = sourceRow();
    const adapter = adapterFor(sellerSettings(seller, 'kpn-wba', 'instant', 'instant'));

    const offers = await adapter.fetchOffers(queryOf(source, requestRow(), coordinateAddress()));

    const [poq] = sent('poq') as { productOfferingQualificationItem: { product: { place: unknown[] } }[] }[];
    expect(poq?.productOfferingQualificationItem[0]?.product.place).toEqual([coordinateInstallPlace]);
    const expected = withOrderTerms(
      catalogueOffers('kpn-wba', 'KPN', { countryCode: 'NL', postalCode: '', city: 'Amsterdam' }),
      sellerAnswers(seller.exchanges),
      coordinateInstallPlace,
    );
    expect(expected.length).toBeGreaterThan(0);
    expect(sorted(offers)).toEqual(sorted(expected));
  });

  it('when the address has neither a street nor coordinates, then P22: no POQ, and SONATA_NO_LOCATION', async () => {
    const source = sourceRow();
    const adapter = adapterFor(sellerSettings(seller, 'kpn-wba', 'instant', 'instant'));
    const nowhere = exampleAddress({
      street: '',
      latitude: null,
      longitude: null,
      coordinatesPrecision: null,
    });

    const result = adapter.fetchOffers(queryOf(source, requestRow(), nowhere));

    await expect(result).rejects.toMatchObject({
      code: 'SONATA_NO_LOCATION',
      message: 'The address has neither a street nor exact coordinates to ask the seller about.',
      retryable: false,
    });
    expect(seller.exchanges).toEqual([]);
  });

  it('when the address has no street but its own BAG point, then P21 sends that point', async () => {
    const source = sourceRow();
    const adapter = adapterFor(sellerSettings(seller, 'kpn-wba', 'instant', 'instant'));
    const located = exampleAddress({ street: '', coordinatesPrecision: 'address' });

    await adapter.fetchOffers(queryOf(source, requestRow(), located));

    const [poq] = sent('poq') as { productOfferingQualificationItem: { product: { place: unknown[] } }[] }[];
    expect(poq?.productOfferingQualificationItem[0]?.product.place).toEqual([
      {
        '@type': 'MEFGeographicPoint',
        role: 'INSTALL_LOCATION',
        spatialRef: 'EPSG:4326 WGS 84',
        x: '52.37403',
        y: '4.88969',
      },
    ]);
  });

  for (const precision of ['postal_code_area', 'city'] as const) {
    it(`when the address has no street and only a ${precision} centre, then no point is sent: SONATA_NO_LOCATION`, async () => {
      const source = sourceRow();
      const adapter = adapterFor(sellerSettings(seller, 'kpn-wba', 'instant', 'instant'));
      const approximate = exampleAddress({
        street: '',
        latitude: 52.37085601362856,
        longitude: 4.881551016519783,
        coordinatesPrecision: precision,
      });

      const result = adapter.fetchOffers(queryOf(source, requestRow(), approximate));

      await expect(result).rejects.toMatchObject({
        code: 'SONATA_NO_LOCATION',
        message: 'The address has neither a street nor exact coordinates to ask the seller about.',
        retryable: false,
      });
      expect(seller.exchanges).toEqual([]);
    });
  }
});
