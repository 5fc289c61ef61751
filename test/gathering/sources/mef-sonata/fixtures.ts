import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeAll, beforeEach, expect } from 'vitest';
import type {
  AddressRow,
  AvailabilityRequestRow,
  SourceRow,
  StoredFilters,
} from '../../../../src/db/rows.js';
import { offersAtPlace, type SellerPlace } from '../../../../src/gathering/simulator/sonata/offerings.js';
import {
  type SonataSeller,
  type SonataSellerMode,
  sonataProductOfferings,
  startSonataSeller,
} from '../../../../src/gathering/simulator/sonata/server.js';
import { demoCatalogPath, readCatalogFile } from '../../../../src/gathering/sources/catalog-file.js';
import type { SonataSourceSettings } from '../../../../src/gathering/sources/mef-sonata/settings.js';
import { createMefSonataSource } from '../../../../src/gathering/sources/mef-sonata/source.js';
import type { PolicySettings } from '../../../../src/gathering/sources/policies.js';
import type { SourceOffer, SourceQuery } from '../../../../src/gathering/sources/types.js';
import { newId } from '../../../../src/ids.js';
import { type SonataValidator, sonataValidator } from '../../../helpers/sonata-openapi.js';

/** The NL demo catalogue the simulated sellers sell from. */
export const catalog = readCatalogFile(demoCatalogPath);

/** Fast backoff, so only a `Retry-After` can make a retry wait long; a breaker that half-opens quickly. */
export const fastPolicy: PolicySettings = {
  retries: 2,
  baseDelayMs: 5,
  maxDelayMs: 5_000,
  breakerThreshold: 5,
  halfOpenAfterMs: 300,
  queueSize: 1_000,
};

export const noFilters: StoredFilters = {
  bandwidths: [],
  networks: [],
  contractTerms: [],
  connectionTypes: [],
  technologyTypes: [],
};

const epoch = new Date('2025-01-06T09:00:00Z');

/** A `mef-sonata` source row as the store returns it (the settings live beside it, see `settingsOf`). */
export function sourceRow(fields: Partial<SourceRow> = {}): SourceRow {
  return {
    id: newId('source'),
    instanceId: newId('instance'),
    key: 'kpn-wba',
    name: 'KPN via Sonata',
    network: 'KPN',
    type: 'mef-sonata',
    countryCodes: ['NL'],
    enabled: true,
    latencyMinMs: 0,
    latencyMaxMs: 0,
    endpointUrl: null,
    credentials: null,
    settings: null,
    hubListeners: null,
    timeoutMs: 5_000,
    concurrency: 4,
    createdAt: epoch,
    updatedAt: epoch,
    ...fields,
  };
}

/** The contract's example address as the service stores it: Lijnbaansgracht 206 H, 1016 XA Amsterdam. */
export function exampleAddress(fields: Partial<AddressRow> = {}): AddressRow {
  return {
    id: newId('address'),
    instanceId: newId('instance'),
    inputKind: 'fields',
    street: 'Lijnbaansgracht',
    city: 'Amsterdam',
    houseNumber: '206',
    houseNumberAddition: 'H',
    postalCode: '1016XA',
    countryCode: 'NL',
    continentCode: 'EU',
    latitude: 52.37403,
    longitude: 4.88969,
    coordinatesPrecision: 'address',
    createdAt: epoch,
    updatedAt: epoch,
    ...fields,
  };
}

/** The contract's coordinate request (52.36801, 4.879151) as stored: reverse geocoding filled the city only. */
export function coordinateAddress(): AddressRow {
  return exampleAddress({
    inputKind: 'coordinates',
    street: '',
    houseNumber: '',
    houseNumberAddition: '',
    postalCode: '',
    latitude: 52.36801,
    longitude: 4.879151,
    coordinatesPrecision: 'given',
  });
}

/** An availability request row with the given filters. */
export function requestRow(filters: Partial<StoredFilters> = {}): AvailabilityRequestRow {
  return {
    id: newId('availabilityRequest'),
    instanceId: newId('instance'),
    addressId: newId('address'),
    createdByUserId: null,
    customerId: null,
    projectId: null,
    pricePlanId: newId('pricePlan'),
    filters: { ...noFilters, ...filters },
    status: 'in_progress',
    sourcesTotal: 1,
    sourcesFinished: 0,
    createdAt: epoch,
    updatedAt: epoch,
  };
}

/** A query of `source` for `request` at `address`. */
export function queryOf(
  source: SourceRow,
  request: AvailabilityRequestRow = requestRow(),
  address: AddressRow = exampleAddress(),
  signal: AbortSignal = new AbortController().signal,
): SourceQuery {
  return { source, request, address, signal };
}

export const buyerContact = {
  name: 'Gateway operations',
  emailAddress: 'noc@gateway.example',
  number: '+31 20 555 0100',
};

/** Settings for one of the simulator's sellers, with its onboarding catalogue of offerings. */
export function sellerSettings(
  seller: SonataSeller,
  sourceKey: string,
  mode: SonataSellerMode,
  interaction: SonataSourceSettings['interaction'],
  fields: Partial<SonataSourceSettings> & { query?: Record<string, string> } = {},
): SonataSourceSettings {
  const { query, ...rest } = fields;
  return {
    baseUrl: seller.baseUrl(sourceKey, mode, query),
    oauth2: {
      tokenUrl: seller.tokenUrl(sourceKey),
      clientId: seller.credentials.clientId,
      clientSecret: seller.credentials.clientSecret,
    },
    buyerContact,
    productOfferings: sonataProductOfferings(catalog, sourceKey),
    interaction,
    poll: { initialDelayMs: 5, maxDelayMs: 40 },
    orderPoll: { initialDelayMs: 5, maxDelayMs: 40 },
    ...rest,
  };
}

/** The catalogue's offers of `sourceKey` at a place, as the adapter should return them (kbps, cents). */
export function catalogueOffers(sourceKey: string, network: string, place: SellerPlace): SourceOffer[] {
  return offersAtPlace(catalog, sourceKey, place).map((offer) => ({
    network,
    technologyType: offer.technology_type,
    connectionType: offer.connection_type,
    downloadKbps: offer.bandwidth.download,
    uploadKbps: offer.bandwidth.upload,
    contractTermMonths: offer.contract_term,
    // The catalogue holds cents; the seller divided them by 100.
    purchaseMrcMinor: Math.round(offer.mrc * 100),
    purchaseNrcMinor: Math.round(offer.nrc * 100),
    currency: offer.currency,
  }));
}

/** Offers in a stable order, to compare lists whatever order the seller answered in. */
export function sorted(offers: readonly SourceOffer[]): SourceOffer[] {
  return [...offers].sort(
    (a, b) =>
      a.technologyType.localeCompare(b.technologyType) ||
      a.connectionType.localeCompare(b.connectionType) ||
      a.downloadKbps - b.downloadKbps ||
      a.uploadKbps - b.uploadKbps ||
      a.contractTermMonths - b.contractTermMonths,
  );
}

/** Which Sonata API a seller path belongs to. */
export function apiOf(path: string): 'poq' | 'quote' {
  return /productOfferingQualification(Notification)?\/v7/.test(path) ? 'poq' : 'quote';
}

/**
 * Every problem the MEF documents find in what the adapter sent and the seller answered (requests,
 * responses, notifications); `skipResponse` leaves out answers a test breaks on purpose.
 */
export function sonataProblems(
  validator: SonataValidator,
  seller: Pick<SonataSeller, 'exchanges' | 'notifications'>,
  skipResponse: (status: number, body: unknown) => boolean = () => false,
): string[] {
  const problems: string[] = [];
  for (const exchange of seller.exchanges) {
    const api = apiOf(exchange.path);
    const body = exchange.requestBody;
    problems.push(
      ...validator.request(api, {
        method: exchange.method,
        path: exchange.path,
        query: exchange.query,
        ...(body === undefined ? {} : { body }),
      }),
    );
    if (skipResponse(exchange.status, exchange.responseBody)) continue;
    problems.push(
      ...validator.response(api, {
        method: exchange.method,
        path: exchange.path,
        status: exchange.status,
        ...(exchange.responseBody === undefined ? {} : { body: exchange.responseBody }),
      }),
    );
  }
  for (const notification of seller.notifications) {
    const path = new URL(notification.url).pathname;
    problems.push(...validator.notification(apiOf(path), { path, body: notification.body }));
  }
  return problems;
}

/** One request a test's own server received. */
export interface Received {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: unknown;
}

/** A real HTTP server on 127.0.0.1 whose answers the test decides. */
export interface OwnServer {
  url: string;
  received: Received[];
  answer: (request: Received, res: ServerResponse) => void;
  stop(): Promise<void>;
}

/** Starts an {@link OwnServer} answering 404 until the test sets `answer`. */
export async function startOwnServer(): Promise<OwnServer> {
  const own: OwnServer = {
    url: '',
    received: [],
    answer: (_request, res) => {
      res.writeHead(404).end();
    },
    stop: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      let body: unknown = text === '' ? undefined : text;
      try {
        body = text === '' ? undefined : JSON.parse(text);
      } catch {
        // A form (the token request) stays text.
      }
      const request = { method: req.method ?? 'GET', path: req.url ?? '/', headers: req.headers, body };
      own.received.push(request);
      own.answer(request, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  own.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return own;
}

/** Answers JSON with `status`. */
export function json(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { 'content-type': 'application/json;charset=utf-8', ...headers });
  res.end(JSON.stringify(body));
}

/** What a failure looks like once the adapter gave up (final: never retried by the engine). */
export function failure(code: string, message: string | RegExp) {
  return expect.objectContaining({
    name: 'SourceError',
    code,
    message: typeof message === 'string' ? message : expect.stringMatching(message),
    retryable: false,
  });
}

/*
 * The simulator's seller, one per test on a fixed clock, for the tests of docs/mef-sonata-mapping.md row by
 * row (requests.test.ts, requests-candidates.test.ts, offers.test.ts). `seller` and `now` are replaced
 * before each test; the files that import them always see the current ones.
 */

/** The running test's seller (see {@link simulatedSellerPerTest}). */
export let seller: SonataSeller;
/** A fixed clock, so the completion dates (now + timeoutMs) are exact. */
export let now: Date;

/**
 * Starts a fresh {@link seller} and sets {@link now} before each test of the calling file; after each, checks
 * all the seller exchanged against the MEF documents and stops it.
 */
export function simulatedSellerPerTest(): void {
  let validator: SonataValidator;
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
}

/** The adapter on the fixed clock {@link now}, for `settings`. */
export function adapterFor(settings: SonataSourceSettings) {
  return createMefSonataSource({ now: () => now, settingsOf: () => settings, policy: fastPolicy });
}

/** The request bodies the seller received, by API. */
export function sent(api: 'poq' | 'quote'): unknown[] {
  const resource = api === 'poq' ? '/productOfferingQualification' : '/quote';
  return seller.exchanges
    .filter((exchange) => exchange.method === 'POST' && exchange.path.endsWith(resource))
    .map((exchange) => exchange.requestBody);
}

const BIA = 'urn:mef:lso:spec:cantata-sonata:basic-internet-access:v1.0.0:all';

/** P9–P13: the Basic Internet Access configuration of one bandwidth (kbps) and connection type. */
export function configuration(downloadKbps: number, uploadKbps: number, connection: 'DIA' | 'SHARED') {
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
