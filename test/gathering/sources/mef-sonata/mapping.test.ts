import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type SonataSeller, startSonataSeller } from '../../../../src/gathering/simulator/sonata/server.js';
import { declinedSummary } from '../../../../src/gathering/sources/mef-sonata/outcome.js';
import type { SonataSourceSettings } from '../../../../src/gathering/sources/mef-sonata/settings.js';
import { createMefSonataSource } from '../../../../src/gathering/sources/mef-sonata/source.js';
import { type SonataValidator, sonataValidator } from '../../../helpers/sonata-openapi.js';
import {
  buyerContact,
  catalogueOffers,
  coordinateAddress,
  exampleAddress,
  fastPolicy,
  queryOf,
  requestRow,
  sellerSettings,
  sonataProblems,
  sorted,
  sourceRow,
} from './fixtures.js';

/*
 * docs/mef-sonata-mapping.md, row by row, against the simulator's sellers: what the adapter sends (§1–§3)
 * and what it makes of the answers (§4). Rows the simulator cannot produce are in answers.test.ts.
 */

const BIA = 'urn:mef:lso:spec:cantata-sonata:basic-internet-access:v1.0.0:all';
const examplePlace = {
  '@type': 'FieldedAddress',
  role: 'INSTALL_LOCATION',
  streetName: 'Lijnbaansgracht',
  streetNr: '206',
  streetNrSuffix: 'H',
  postcode: '1016XA',
  city: 'Amsterdam',
  country: 'NL',
};
const contact = { role: 'buyerContactInformation', ...buyerContact };

let validator: SonataValidator;
let seller: SonataSeller;
/** A fixed clock, so the completion dates (now + timeoutMs) are exact. */
let now: Date;

beforeAll(async () => {
  validator = await sonataValidator();
});
beforeEach(async () => {
  seller = await startSonataSeller({ behaviour: { stepMs: 10 } });
  now = new Date(Math.floor(Date.now() / 1000) * 1000);
});
afterEach(async () => {
  await seller.settled();
  expect(sonataProblems(validator, seller)).toEqual([]);
  await seller.stop();
});

function adapterFor(settings: SonataSourceSettings) {
  return createMefSonataSource({ now: () => now, settingsOf: () => settings, policy: fastPolicy });
}

/** The request bodies the seller received, by API. */
function sent(api: 'poq' | 'quote'): unknown[] {
  const resource = api === 'poq' ? '/productOfferingQualification' : '/quote';
  return seller.exchanges
    .filter((exchange) => exchange.method === 'POST' && exchange.path.endsWith(resource))
    .map((exchange) => exchange.requestBody);
}

/** P9–P13: the Basic Internet Access configuration of one bandwidth (kbps) and connection type. */
function configuration(downloadKbps: number, uploadKbps: number, connection: 'DIA' | 'SHARED') {
  const envelope = (kbps: number) => {
    const maxIr = { irValue: kbps / 1000, irUnits: 'MBPS' };
    return [{ cir: connection === 'DIA' ? maxIr : { irValue: 0, irUnits: 'MBPS' }, maxIr }];
  };
  return {
    '@type': BIA,
    ipvc: { ipvcEndPoint: {} },
    ipUni: {},
    ipUniAccessLink: { egressBwpEnvelope: envelope(downloadKbps), ingressBwpEnvelope: envelope(uploadKbps) },
    ipUniAccessLinkTrunk: {},
  };
}

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
      place: [examplePlace],
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
    expect(offers).toEqual(
      catalogueOffers('kpn-wba', 'KPN', {
        countryCode: 'NL',
        postalCode: '1016XA',
        city: 'Amsterdam',
      }).filter(
        (offer) =>
          offer.technologyType === 'FTTH' &&
          offer.downloadKbps === 100_000 &&
          offer.contractTermMonths === 36,
      ),
    );
    expect(offers).toHaveLength(1);
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
        place: [examplePlace],
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
    const { streetNrSuffix: _left, ...withoutAddition } = examplePlace;
    expect(poq?.productOfferingQualificationItem[0]?.product.place).toEqual([withoutAddition]);
  });

  it('when the request gave only coordinates, then P21 sends a WGS 84 point and the seller qualifies its city', async () => {
    const source = sourceRow();
    const adapter = adapterFor(sellerSettings(seller, 'kpn-wba', 'instant', 'instant'));

    const offers = await adapter.fetchOffers(queryOf(source, requestRow(), coordinateAddress()));

    const [poq] = sent('poq') as { productOfferingQualificationItem: { product: { place: unknown[] } }[] }[];
    expect(poq?.productOfferingQualificationItem[0]?.product.place).toEqual([
      {
        '@type': 'MEFGeographicPoint',
        role: 'INSTALL_LOCATION',
        spatialRef: 'EPSG:4326 WGS 84',
        x: '52.36801',
        y: '4.879151',
      },
    ]);
    const expected = catalogueOffers('kpn-wba', 'KPN', {
      countryCode: 'NL',
      postalCode: '',
      city: 'Amsterdam',
    });
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
      message: 'The address has neither a street nor coordinates to ask the seller about.',
      retryable: false,
    });
    expect(seller.exchanges).toEqual([]);
  });

  it('when the request filters a bandwidth, then §2b puts it on every offering (P6 numbering) and §2a quotes only the qualified one', async () => {
    const source = sourceRow();
    const request = requestRow({
      bandwidths: [{ download: 100_000, upload: 100_000 }],
      contractTerms: [12, 36],
    });
    const adapter = adapterFor(sellerSettings(seller, 'kpn-wba', 'instant', 'instant'));

    const gathering = await adapter.gather(queryOf(source, request));

    const [poq] = sent('poq') as {
      productOfferingQualificationItem: { id: string; product: { productOffering: { id: string } } }[];
    }[];
    const offerings = [
      'adsl-shared',
      'copper-shared',
      'vdsl-shared',
      'bvdsl-shared',
      'vplus-shared',
      'ftth-shared',
    ];
    expect(
      poq?.productOfferingQualificationItem.map((item) => [item.id, item.product.productOffering.id]),
    ).toEqual(offerings.map((offering, index) => [String(index + 1), `basic-internet-access-${offering}`]));
    // A5: red items are recorded, not quoted; A4: the green one is quoted at each requested term (Q10).
    expect(gathering.declined).toEqual(
      offerings.slice(0, 5).map((offering) => ({
        stage: 'poq',
        reason: 'notServiceable',
        productOfferingId: `basic-internet-access-${offering}`,
        downloadKbps: 100_000,
        uploadKbps: 100_000,
        contractTermMonths: null,
        detail: 'POQ item done.ready, serviceabilityConfidence red',
      })),
    );
    const [quote] = sent('quote') as {
      quoteItem: {
        id: string;
        requestedQuoteItemTerm: { name: string };
        productOfferingQualificationItem: { id: string };
      }[];
    }[];
    expect(
      quote?.quoteItem.map((item) => [
        item.id,
        item.requestedQuoteItemTerm.name,
        item.productOfferingQualificationItem.id,
      ]),
    ).toEqual([
      ['1', '12 months', '6'],
      ['2', '36 months', '6'],
    ]);
    expect(
      gathering.offers.map((o) => [
        o.technologyType,
        o.connectionType,
        o.downloadKbps,
        o.uploadKbps,
        o.contractTermMonths,
      ]),
    ).toEqual([
      ['FTTH', 'SHARED', 100_000, 100_000, 12],
      ['FTTH', 'SHARED', 100_000, 100_000, 36],
    ]);
    expect(declinedSummary(gathering)).toBe('2 offers; declined: 5 not serviceable');
  });

  it('when the request filters technology and connection type, then only matching offerings are candidates, at their onboarding bandwidths', async () => {
    const source = sourceRow({ key: 'tele2', network: 'Tele2' });
    const request = requestRow({
      technologyTypes: ['VDSL'],
      connectionTypes: ['SHARED'],
      networks: ['Tele2'],
    });
    const adapter = adapterFor(sellerSettings(seller, 'tele2', 'instant', 'instant'));

    const offers = await adapter.fetchOffers(queryOf(source, request));

    const [poq] = sent('poq') as {
      productOfferingQualificationItem: {
        product: { productOffering: { id: string }; productConfiguration: unknown };
      }[];
    }[];
    expect(poq?.productOfferingQualificationItem.map((item) => item.product.productOffering.id)).toEqual([
      'basic-internet-access-vdsl-shared',
      'basic-internet-access-vdsl-shared',
    ]);
    expect(poq?.productOfferingQualificationItem.map((item) => item.product.productConfiguration)).toEqual([
      configuration(50_000, 5_000, 'SHARED'),
      configuration(100_000, 10_000, 'SHARED'),
    ]);
    // The network filter is not sent: the engine already chose this source by it.
    expect(JSON.stringify(sent('poq'))).not.toContain('Tele2');
    expect(sorted(offers)).toEqual(
      sorted(
        catalogueOffers('tele2', 'Tele2', {
          countryCode: 'NL',
          postalCode: '1016XA',
          city: 'Amsterdam',
        }).filter((offer) => offer.technologyType === 'VDSL'),
      ),
    );
  });

  it('when the filters leave none of the source’s offerings, then nothing is asked and nothing is offered', async () => {
    const adapter = adapterFor(sellerSettings(seller, 'kpn-wba', 'instant', 'instant'));

    const offers = await adapter.fetchOffers(
      queryOf(sourceRow(), requestRow({ technologyTypes: ['FIBER'] })),
    );

    expect(offers).toEqual([]);
    expect(seller.exchanges).toEqual([]);
  });
});

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
    expect(gathering.offers).toEqual(expected);
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
