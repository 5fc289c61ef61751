import { afterEach, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import {
  type SonataSeller,
  type SonataSellerMode,
  sonataProductOfferings,
  startSonataSeller,
} from '../../../src/gathering/simulator/sonata/server.js';
import { demoCatalogPath, readCatalogFile } from '../../../src/gathering/sources/catalog-file.js';
import { type SonataApi, type SonataValidator, sonataValidator } from '../../helpers/sonata-openapi.js';

const BIA = 'urn:mef:lso:spec:cantata-sonata:basic-internet-access:v1.0.0:all';
const API_PATHS = {
  poq: '/mefApi/sonata/productOfferingQualification/v7',
  quote: '/mefApi/sonata/quoteManagement/v8',
};
const LIJNBAANSGRACHT = {
  '@type': 'FieldedAddress',
  role: 'INSTALL_LOCATION',
  streetName: 'Lijnbaansgracht',
  streetNr: '206',
  streetNrSuffix: 'H',
  postcode: '1016XA',
  city: 'Amsterdam',
  country: 'NL',
};
const contact = [
  { role: 'buyerContactInformation', name: 'Desk', emailAddress: 'desk@buyer.example', number: '+31 20 1' },
];

type Place = Record<string, unknown>;
// biome-ignore lint/suspicious/noExplicitAny: answers are validated against the MEF documents (afterEach); tests read them along those schemas.
type Json = any;
interface Candidate {
  offering: string;
  download: number;
  upload: number;
}

/** MEF 139 Basic Internet Access for a bandwidth in kbps (docs/mef-sonata-mapping.md P9–P13). */
const bia = (download: number, upload: number) => ({
  '@type': BIA,
  ipvc: { ipvcEndPoint: {} },
  ipUni: {},
  ipUniAccessLinkTrunk: {},
  ipUniAccessLink: {
    egressBwpEnvelope: [{ maxIr: { irValue: download / 1000, irUnits: 'MBPS' } }],
    ingressBwpEnvelope: [{ maxIr: { irValue: upload / 1000, irUnits: 'MBPS' } }],
  },
});
const product = (candidate: Candidate, place: Place) => ({
  productOffering: { id: candidate.offering },
  productConfiguration: bia(candidate.download, candidate.upload),
  place: [place],
});
const poqBody = (candidates: Candidate[], place: Place, instant: boolean) => ({
  instantSyncQualification: instant,
  ...(instant ? {} : { requestedPOQCompletionDate: new Date(Date.now() + 60_000).toISOString() }),
  externalId: 'avr_test',
  provideAlternative: false,
  relatedContactInformation: contact,
  productOfferingQualificationItem: candidates.map((candidate, index) => ({
    id: String(index + 1),
    action: 'add',
    product: product(candidate, place),
  })),
});
const quoteBody = (candidates: Candidate[], place: Place, months: number, instant: boolean) => ({
  instantSyncQuote: instant,
  buyerRequestedQuoteLevel: 'firm',
  ...(instant ? {} : { requestedQuoteCompletionDate: new Date(Date.now() + 60_000).toISOString() }),
  relatedContactInformation: contact,
  quoteItem: candidates.map((candidate, index) => ({
    id: String(index + 1),
    action: 'add',
    product: product(candidate, place),
    requestedQuoteItemTerm: {
      duration: { amount: months, units: 'calendarMonths' },
      endOfTermAction: 'roll',
      rollInterval: { amount: 1, units: 'calendarMonths' },
      name: `${months} months`,
    },
  })),
});

let validator: SonataValidator;
let seller: SonataSeller;
beforeAll(async () => {
  validator = await sonataValidator();
});
beforeEach(async () => {
  seller = await startSonataSeller();
});
afterEach(async () => {
  for (const exchange of seller.exchanges) {
    const api: SonataApi = exchange.path.includes(API_PATHS.quote) ? 'quote' : 'poq';
    const problems = validator.request(api, {
      method: exchange.method,
      path: exchange.path,
      body: exchange.requestBody,
    });
    // A body the seller refused as invalid must break the document too; everything else must follow it.
    if ((exchange.responseBody as Json)?.code === 'invalidBody') expect(problems).not.toEqual([]);
    else expect(problems).toEqual([]);
    expect(validator.response(api, { ...exchange, body: exchange.responseBody })).toEqual([]);
  }
  await seller.stop();
});

async function accessToken(sourceKey: string): Promise<string> {
  const response = await fetch(seller.tokenUrl(sourceKey), {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: seller.credentials.clientId,
      client_secret: seller.credentials.clientSecret,
    }),
  });
  return ((await response.json()) as { access_token: string }).access_token;
}

async function call(
  sourceKey: string,
  mode: SonataSellerMode,
  api: SonataApi,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; headers: Headers; body: Json }> {
  const url = new URL(seller.baseUrl(sourceKey, mode));
  url.pathname += `${API_PATHS[api]}${path}`;
  const response = await fetch(url, {
    method,
    headers: {
      authorization: `Bearer ${await accessToken(sourceKey)}`,
      'content-type': 'application/json;charset=utf-8',
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined };
}

/** Quote items → the gateway's offers (docs/mef-sonata-mapping.md B7–B13), offerings looked up in the onboarding list. */
function offers(sourceKey: string, quote: Record<string, unknown>) {
  const onboarding = sonataProductOfferings(readCatalogFile(demoCatalogPath), sourceKey);
  return (quote.quoteItem as Json[]).map((item) => {
    const offering = onboarding.find((o) => o.productOfferingId === item.product.productOffering.id);
    const price = (type: string) =>
      item.quoteItemPrice.find((p: Json) => p.priceType === type).price.dutyFreeAmount;
    const link = item.product.productConfiguration.ipUniAccessLink;
    return {
      state: item.state,
      technologyType: offering?.technologyType,
      connectionType: offering?.connectionType,
      downloadKbps: link.egressBwpEnvelope[0].maxIr.irValue * 1000,
      uploadKbps: link.ingressBwpEnvelope[0].maxIr.irValue * 1000,
      contractTermMonths: item.quoteItemTerm[0].duration.amount,
      purchaseMrcMinor: Math.round(price('recurring').value * 100),
      purchaseNrcMinor: Math.round(price('nonRecurring').value * 100),
      currency: price('recurring').unit,
    };
  });
}

const tele2Candidates = (): Candidate[] =>
  sonataProductOfferings(readCatalogFile(demoCatalogPath), 'tele2').flatMap((offering) =>
    offering.bandwidths.map((bandwidth) => ({ offering: offering.productOfferingId, ...bandwidth })),
  );

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
    await seller.stop();
    seller = await startSonataSeller({ offeringPrefix: 'bia' });
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

  test('when the address is outside the coverage, then items are done.ready red and quotes unableToProvide', async () => {
    const winterswijk = {
      ...LIJNBAANSGRACHT,
      streetName: 'Markt',
      streetNr: '1',
      postcode: '7101BA',
      city: 'Winterswijk',
    };
    const candidates = tele2Candidates();
    const poq = await call(
      'tele2',
      'instant',
      'poq',
      'POST',
      '/productOfferingQualification',
      poqBody(candidates, winterswijk, true),
    );
    const items = poq.body.productOfferingQualificationItem as Record<string, unknown>[];
    expect(poq.body.state).toBe('done.ready');
    expect(items.map((item) => item.serviceabilityConfidence)).toEqual(['green', 'red', 'red', 'red', 'red']);
    expect(items[1]).not.toHaveProperty('installationInterval');

    const quote = await call(
      'tele2',
      'instant',
      'quote',
      'POST',
      '/quote',
      quoteBody(candidates.slice(2, 3), winterswijk, 36, true),
    );
    expect(quote.body.state).toBe('unableToProvide');
    expect((quote.body.quoteItem as Json[])[0]).toMatchObject({
      state: 'unableToProvide',
      terminationError: [
        {
          code: 'invalidValue',
          propertyPath: '/quoteItem/0/product',
          value: 'Not deliverable as specified at this place.',
        },
      ],
    });
  });

  test('when a coordinate-only place is sent as an MEFGeographicPoint, then it is placed in its city', async () => {
    const point = {
      '@type': 'MEFGeographicPoint',
      role: 'INSTALL_LOCATION',
      spatialRef: 'EPSG:4326 WGS 84',
      x: '52.3728',
      y: '4.8936',
    };
    const poq = await call(
      'tele2',
      'instant',
      'poq',
      'POST',
      '/productOfferingQualification',
      poqBody(tele2Candidates(), point, true),
    );
    const items = poq.body.productOfferingQualificationItem as Record<string, unknown>[];
    expect(items.map((item) => item.serviceabilityConfidence)).toEqual([
      'green',
      'green',
      'green',
      'green',
      'green',
    ]);
  });
});
