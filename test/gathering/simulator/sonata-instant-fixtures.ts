import { afterEach, beforeAll, beforeEach, expect } from 'vitest';
import {
  type SonataSeller,
  type SonataSellerMode,
  sonataProductOfferings,
  startSonataSeller,
} from '../../../src/gathering/simulator/sonata/server.js';
import { demoCatalogPath, readCatalogFile } from '../../../src/gathering/sources/catalog-file.js';
import {
  SONATA_API_PATHS,
  type SonataApi,
  type SonataValidator,
  sonataValidator,
} from '../../helpers/sonata-openapi.js';

/*
 * What the tests of an instant Sonata seller share (sonata-instant, sonata-instant-places): the bodies of a
 * POQ and a Quote for the Tele2 candidates, the seller per test with every exchange checked against the MEF
 * documents, and the offers a quote gives.
 */

const BIA = 'urn:mef:lso:spec:cantata-sonata:basic-internet-access:v1.0.0:all';
const API_PATHS = SONATA_API_PATHS;
export const LIJNBAANSGRACHT = {
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
export type Json = any;
export interface Candidate {
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
export const poqBody = (candidates: Candidate[], place: Place, instant: boolean) => ({
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
export const quoteBody = (candidates: Candidate[], place: Place, months: number, instant: boolean) => ({
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

/**
 * Registers the hooks of a file of these tests and answers its `call`: one validator for the file, a fresh
 * seller for each test, and after each test every exchange checked against the MEF documents and the seller
 * stopped. `restartSeller` stops the test's seller and starts another with other options, which is then the
 * one checked and stopped.
 */
export function instantSellerPerTest() {
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

  async function restartSeller(options: Parameters<typeof startSonataSeller>[0]): Promise<void> {
    await seller.stop();
    seller = await startSonataSeller(options);
  }

  return { call, restartSeller };
}

/** Quote items → the gateway's offers (docs/mef-sonata-mapping.md B7–B13), offerings looked up in the onboarding list. */
export function offers(sourceKey: string, quote: Record<string, unknown>) {
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

export const tele2Candidates = (): Candidate[] =>
  sonataProductOfferings(readCatalogFile(demoCatalogPath), 'tele2').flatMap((offering) =>
    offering.bandwidths.map((bandwidth) => ({ offering: offering.productOfferingId, ...bandwidth })),
  );
