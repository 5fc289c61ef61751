import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { SonataSourceSettings } from '../../../../src/gathering/sources/mef-sonata/settings.js';
import { createMefSonataSource } from '../../../../src/gathering/sources/mef-sonata/source.js';
import { type SonataValidator, sonataValidator } from '../../../helpers/sonata-openapi.js';
import { configuration, fastPolicy, queryOf, requestRow, sonataProblems, sourceRow } from './fixtures.js';
import { exampleInstallPlace, rollingTerm } from './order-terms-fixtures.js';
import { type OwnSeller, poqAnswer, price, quoteAnswer, startOwnSeller, term } from './own-seller.js';

/*
 * docs/mef-sonata-mapping.md §4 rows the simulator never answers (crafted item states, prices, terms, units),
 * from a seller of the test's own. Its answers are checked against the MEF documents like the simulator's.
 */

type Json = Record<string, unknown>;

let validator: SonataValidator;
let own: OwnSeller;
/** Answers a test breaks on purpose, left out of the MEF documents' check. */
let offTheDocuments: (status: number, body: unknown) => boolean;

beforeAll(async () => {
  validator = await sonataValidator();
  own = await startOwnSeller();
});
afterAll(() => own.stop());
beforeEach(() => {
  own.exchanges.length = 0;
  own.poq = (body) => poqAnswer(body, 'done.ready', { 1: green, 2: green });
  offTheDocuments = () => false;
});
afterEach(() => {
  expect(sonataProblems(validator, own, offTheDocuments)).toEqual([]);
});

const green = {
  state: 'done.ready',
  serviceabilityConfidence: 'green',
  installationInterval: { amount: 10, units: 'calendarDays' },
};
const orderable = (prices: Json[], extra: Json = {}) => ({
  state: 'approved.orderable',
  quoteItemPrice: prices,
  quoteItemTerm: [term(36)],
  ...extra,
});
const fiber = {
  network: 'Eurofiber',
  technologyType: 'FIBER',
  connectionType: 'DIA',
  downloadKbps: 100_000,
  uploadKbps: 100_000,
  contractTermMonths: 36,
  currency: 'EUR',
};
/**
 * What ordering an offer of the own seller needs: POQ `poq-1` item `poqItemId`, Quote `quote-1` item
 * `quoteItemId`, the offering asked at `kbps` (symmetric) to the example address, the seller's `term(36)`,
 * no `validFor`.
 */
function orderedAs(poqItemId: string, quoteItemId: string, kbps = 100_000, itemTerm: object = term(36)) {
  return {
    kind: 'mef-sonata',
    poqId: 'poq-1',
    poqItemId,
    quoteId: 'quote-1',
    quoteItemId,
    productOfferingId: 'bia-fiber-dia',
    itemTerm,
    productConfiguration: configuration(kbps, kbps, 'DIA'),
    place: [exampleInstallPlace],
    validFor: null,
  };
}
/** The own seller's one offering, at the given bandwidths (kbps, symmetric). */
function fiberAt(...kbps: number[]): Partial<SonataSourceSettings> {
  return {
    productOfferings: [
      {
        productOfferingId: 'bia-fiber-dia',
        technologyType: 'FIBER',
        connectionType: 'DIA',
        bandwidths: kbps.map((rate) => ({ download: rate, upload: rate })),
        contractTerms: [36],
      },
    ],
  };
}

function adapterFor(settings: SonataSourceSettings) {
  return createMefSonataSource({ now: () => new Date(), settingsOf: () => settings, policy: fastPolicy });
}
const source = () => sourceRow({ key: 'own', network: 'Eurofiber' });

describe('§4a POQ answers the simulator never gives', () => {
  it('when the POQ is terminatedWithError (A3b), then SONATA_POQ_TERMINATED carries the termination errors', async () => {
    own.poq = (body) =>
      poqAnswer(body, 'terminatedWithError', {
        1: {
          state: 'terminatedWithError',
          terminationError: [
            {
              code: 'invalidValue',
              propertyPath: '/productOfferingQualificationItem/0/product/place/0',
              value: 'Unknown street',
            },
          ],
        },
      });
    const adapter = adapterFor(own.settings());

    const result = adapter.fetchOffers(queryOf(source()));

    await expect(result).rejects.toMatchObject({
      code: 'SONATA_POQ_TERMINATED',
      message:
        'The seller terminated POQ poq-1: invalidValue at /productOfferingQualificationItem/0/product/place/0 (Unknown street).',
      retryable: false,
    });
  });

  it('when items end terminated, abandoned and yellow, in another order than asked (A4, A6, A7), then only the yellow one is quoted, matched by id', async () => {
    const settings = own.settings(fiberAt(50_000, 100_000, 200_000));
    own.poq = (body) => {
      const answer = poqAnswer(body, 'done.ready', {
        1: {
          state: 'terminatedWithError',
          terminationError: [{ code: 'otherIssue', value: 'No port left' }],
        },
        2: {
          state: 'done.ready',
          serviceabilityConfidence: 'yellow',
          installationInterval: { amount: 60, units: 'calendarDays' },
        },
        3: { state: 'done.abandoned' },
      }) as { status: number; body: { productOfferingQualificationItem: unknown[] } };
      answer.body.productOfferingQualificationItem.reverse();
      return answer;
    };
    own.quote = (body) =>
      quoteAnswer(body, 'approved.orderable', {
        1: orderable([price('recurring', 549.95), price('nonRecurring', 1735)]),
      });
    const adapter = adapterFor(settings);

    const gathering = await adapter.gather(queryOf(source()));

    const quoted = own.exchanges.at(-1)?.requestBody as {
      quoteItem: { productOfferingQualificationItem: { id: string } }[];
    };
    expect(quoted.quoteItem.map((item) => item.productOfferingQualificationItem.id)).toEqual(['2']);
    // Quote item 1 names POQ item 2, the yellow one at 100 Mbit/s.
    expect(gathering.offers).toEqual([
      { ...fiber, purchaseMrcMinor: 54_995, purchaseNrcMinor: 173_500, orderTerms: orderedAs('2', '1') },
    ]);
    expect(gathering.declined.map((item) => [item.reason, item.downloadKbps, item.detail])).toEqual([
      ['terminated', 50_000, 'POQ item terminatedWithError: otherIssue (No port left)'],
      ['abandoned', 200_000, 'POQ item done.abandoned'],
    ]);
  });
});

describe('§4b Quote answers the simulator never gives', () => {
  it('when the whole Quote is unableToProvide (B3), then SONATA_QUOTE_UNABLE_TO_PROVIDE and each item is recorded', async () => {
    own.quote = (body) =>
      quoteAnswer(body, 'unableToProvide', {
        1: {
          state: 'unableToProvide',
          terminationError: [{ code: 'otherIssue', value: 'Capacity exhausted' }],
        },
      });
    const adapter = adapterFor(own.settings());

    const gathering = await adapter.gather(queryOf(source()));
    const result = adapter.fetchOffers(queryOf(source()));

    expect(gathering.declined.map((item) => [item.stage, item.reason, item.detail])).toEqual([
      ['quote', 'unableToProvide', 'quote unableToProvide: otherIssue (Capacity exhausted)'],
    ]);
    await expect(result).rejects.toMatchObject({
      code: 'SONATA_QUOTE_UNABLE_TO_PROVIDE',
      message: 'The seller cannot provide any of the 1 quote items (quote quote-1 unableToProvide).',
    });
  });

  it('when one item is priced and one rejected, in reverse order (B5, B6), then the priced one is the offer and the other is recorded', async () => {
    own.quote = (body) => {
      const answer = quoteAnswer(body, 'approved.orderable', {
        1: { state: 'rejected' },
        2: orderable([price('recurring', 1409.95), price('nonRecurring', 2445)]),
      }) as { status: number; body: { quoteItem: unknown[] } };
      answer.body.quoteItem.reverse();
      return answer;
    };
    const adapter = adapterFor(own.settings(fiberAt(100_000, 1_000_000)));

    const gathering = await adapter.gather(queryOf(source()));

    expect(gathering.offers).toEqual([
      {
        ...fiber,
        downloadKbps: 1_000_000,
        uploadKbps: 1_000_000,
        purchaseMrcMinor: 140_995,
        purchaseNrcMinor: 244_500,
        orderTerms: orderedAs('2', '2', 1_000_000),
      },
    ]);
    expect(gathering.declined.map((item) => [item.reason, item.downloadKbps, item.detail])).toEqual([
      ['unableToProvide', 100_000, 'quote item rejected'],
    ]);
  });

  it.each([
    [
      'two one-off prices are summed; no one-off price is 0 (B8)',
      [price('recurring', 99), price('nonRecurring', 250), price('nonRecurring', 0.5)],
      { purchaseMrcMinor: 9_900, purchaseNrcMinor: 25_050 },
    ],
    [
      'no one-off price at all gives an NRC of 0 (B8)',
      [price('recurring', 0.07)],
      { purchaseMrcMinor: 7, purchaseNrcMinor: 0 },
    ],
    [
      'a yen price has no minor digits (B7, B9)',
      [price('recurring', 52000, 'JPY'), price('nonRecurring', 10000, 'JPY')],
      { purchaseMrcMinor: 52_000, purchaseNrcMinor: 10_000, currency: 'JPY' },
    ],
  ])('when %s, then the offer has exact minor units', async (_case, prices, expected) => {
    own.quote = (body) =>
      quoteAnswer(body, 'answered', { 1: orderable(prices as Json[], { state: 'answered' }) });
    const adapter = adapterFor(own.settings());

    const offers = await adapter.fetchOffers(queryOf(source()));

    expect(offers).toEqual([{ ...fiber, ...expected, orderTerms: orderedAs('1', '1') }]);
  });

  it.each([
    [
      'a price has more decimals than EUR (B7)',
      { 1: orderable([price('recurring', 12.345)]) },
      'a price is negative or has more decimals than EUR allows',
    ],
    [
      'prices mix currencies (B9)',
      { 1: orderable([price('recurring', 12), price('nonRecurring', 100, 'USD')]) },
      'quote item prices without one ISO 4217 currency',
    ],
    [
      'the term is in days (B10)',
      { 1: orderable([price('recurring', 12)], { quoteItemTerm: [term(365, 'calendarDays')] }) },
      'quote item term of 365 calendarDays',
    ],
    [
      'the item names an offering the source does not know (B13)',
      { 1: orderable([price('recurring', 12)], { product: { productOffering: { id: 'bia-unknown' } } }) },
      'quote item names the offering bia-unknown, not configured',
    ],
  ])('when %s, then INVALID_RESPONSE and nothing is offered', async (_case, items, detail) => {
    own.quote = (body) => quoteAnswer(body, 'approved.orderable', items as Record<string, Json>);
    const adapter = adapterFor(own.settings());

    const gathering = await adapter.gather(queryOf(source()));
    const result = adapter.fetchOffers(queryOf(source()));

    expect(gathering.declined.map((item) => [item.reason, item.detail])).toEqual([
      ['unusableAnswer', detail],
    ]);
    await expect(result).rejects.toMatchObject({
      code: 'INVALID_RESPONSE',
      message: `Quote quote-1 could not be read: ${detail}.`,
    });
  });

  it('when two monthly prices are given (B7: exactly one), then the item is recorded as quoted without a usable price', async () => {
    own.quote = (body) =>
      quoteAnswer(body, 'approved.orderable', {
        1: orderable([price('recurring', 12), price('recurring', 13)]),
      });
    const adapter = adapterFor(own.settings());

    const result = adapter.fetchOffers(queryOf(source()));

    await expect(result).rejects.toMatchObject({
      code: 'SONATA_NO_PRICE',
      message: 'Quote quote-1 (approved.orderable) priced none of its 1 items.',
    });
  });

  it('when the item states its bandwidth in KBPS and GBPS (B11, B12), then they become kbps', async () => {
    const link = {
      ipUniAccessLink: {
        egressBwpEnvelope: [{ maxIr: { irValue: 1, irUnits: 'GBPS' } }],
        ingressBwpEnvelope: [{ maxIr: { irValue: 500_000, irUnits: 'KBPS' } }],
      },
    };
    own.quote = (body) => {
      const items = body.quoteItem as { product: { productConfiguration: Json } }[];
      const product = {
        ...items[0]?.product,
        productConfiguration: { ...items[0]?.product.productConfiguration, ...link },
      };
      return quoteAnswer(body, 'approved.orderable', {
        1: orderable([price('recurring', 1_000)], { product }),
      });
    };
    const adapter = adapterFor(own.settings());

    const offers = await adapter.fetchOffers(queryOf(source()));

    expect(offers).toEqual([
      {
        ...fiber,
        downloadKbps: 1_000_000,
        uploadKbps: 500_000,
        purchaseMrcMinor: 100_000,
        purchaseNrcMinor: 0,
        // The configuration stays the one the Quote was asked for (SonataOrderTerms).
        orderTerms: orderedAs('1', '1'),
      },
    ]);
  });

  it('when the seller prices an item without a quoteItemTerm, then the requested term is kept', async () => {
    own.quote = (body) =>
      quoteAnswer(body, 'approved.orderable', {
        1: orderable([price('recurring', 20)], { quoteItemTerm: undefined }),
      });
    const adapter = adapterFor(own.settings());

    const offers = await adapter.fetchOffers(queryOf(source(), requestRow({ contractTerms: [24] })));

    expect(offers).toEqual([
      {
        ...fiber,
        contractTermMonths: 24,
        purchaseMrcMinor: 2_000,
        purchaseNrcMinor: 0,
        orderTerms: orderedAs('1', '1', 100_000, rollingTerm(24)),
      },
    ]);
  });
});

describe('§4c what ordering an offer takes (SonataOrderTerms)', () => {
  it('when the seller quotes a term of its own and says how long its prices hold, then the offer keeps both as said', async () => {
    const quotedTerm = {
      name: 'Three years, then quarterly',
      duration: { amount: 36, units: 'calendarMonths' },
      endOfTermAction: 'roll',
      rollInterval: { amount: 3, units: 'calendarMonths' },
      description: 'Rolls on per quarter after the first three years.',
    };
    const validFor = { startDateTime: '2025-01-06T09:00:00Z', endDateTime: '2025-02-05T09:00:00Z' };
    own.quote = (body) =>
      quoteAnswer(
        body,
        'approved.orderable',
        { 1: orderable([price('recurring', 99)], { quoteItemTerm: [quotedTerm] }) },
        { validFor },
      );
    const adapter = adapterFor(own.settings());

    const offers = await adapter.fetchOffers(queryOf(source()));

    expect(offers).toEqual([
      {
        ...fiber,
        purchaseMrcMinor: 9_900,
        purchaseNrcMinor: 0,
        orderTerms: { ...orderedAs('1', '1', 100_000, quotedTerm), validFor },
      },
    ]);
  });

  it('when the seller’s term has neither name nor end-of-term action and the Quote no validFor, then the offer is ordered with the term asked for and no validity', async () => {
    own.quote = (body) =>
      quoteAnswer(body, 'approved.orderable', {
        1: orderable([price('recurring', 99)], {
          quoteItemTerm: [{ duration: { amount: 24, units: 'calendarMonths' } }],
        }),
      });
    // MEFItemTerm requires both: this answer is off the documents on purpose.
    offTheDocuments = (status, body) => status === 201 && (body as Json).id === 'quote-1';
    const adapter = adapterFor(own.settings());

    const offers = await adapter.fetchOffers(queryOf(source(), requestRow({ contractTerms: [24] })));

    expect(offers).toEqual([
      {
        ...fiber,
        contractTermMonths: 24,
        purchaseMrcMinor: 9_900,
        purchaseNrcMinor: 0,
        orderTerms: orderedAs('1', '1', 100_000, rollingTerm(24)),
      },
    ]);
  });
});
