import { describe, expect, it } from 'vitest';
import { declinedSummary } from '../../../../src/gathering/sources/mef-sonata/outcome.js';
import {
  adapterFor,
  catalogueOffers,
  configuration,
  queryOf,
  requestRow,
  seller,
  sellerSettings,
  sent,
  simulatedSellerPerTest,
  sorted,
  sourceRow,
} from './fixtures.js';
import { exampleInstallPlace, rollingTerm, sellerAnswers, withOrderTerms } from './order-terms-fixtures.js';

/*
 * docs/mef-sonata-mapping.md §2b against the simulator's sellers: the candidates a request's filters make of
 * the source's offerings (src/gathering/sources/mef-sonata/requests.ts), and what is quoted of them. The
 * bodies themselves are in requests.test.ts.
 */

simulatedSellerPerTest();

describe('§2 the POQ request and §3 the Quote request', () => {
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
    // Each is ordered through its own quote item and the one POQ item that qualified both.
    expect(
      gathering.offers.map(({ orderTerms: terms }) =>
        terms?.kind === 'mef-sonata' ? [terms.poqItemId, terms.quoteItemId, terms.itemTerm] : [],
      ),
    ).toEqual([
      ['6', '1', rollingTerm(12)],
      ['6', '2', rollingTerm(36)],
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
        withOrderTerms(
          catalogueOffers('tele2', 'Tele2', {
            countryCode: 'NL',
            postalCode: '1016XA',
            city: 'Amsterdam',
          }).filter((offer) => offer.technologyType === 'VDSL'),
          sellerAnswers(seller.exchanges),
          exampleInstallPlace,
        ),
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
