import type { SonataOrderTerms } from '../../../src/db/contract/order-terms.js';
import type { SourceRow } from '../../../src/db/rows.js';
import type { SonataSourceSettings } from '../../../src/gathering/sources/mef-sonata/settings.js';
import { newId } from '../../../src/ids.js';
import type { SupplierOrderToPlace } from '../../../src/ordering/mef-sonata/order-request.js';

type Json = Record<string, unknown>;

/** The MEF 139 Basic Internet Access configuration of a 100/100 Mbit/s DIA line, as a Quote asked for it. */
export const configuration: Json = {
  '@type': 'urn:mef:lso:spec:cantata-sonata:basic-internet-access:v1.0.0:all',
  ipvc: { ipvcEndPoint: {} },
  ipUni: {},
  ipUniAccessLink: {
    egressBwpEnvelope: [{ cir: { irValue: 100, irUnits: 'MBPS' }, maxIr: { irValue: 100, irUnits: 'MBPS' } }],
    ingressBwpEnvelope: [
      { cir: { irValue: 100, irUnits: 'MBPS' }, maxIr: { irValue: 100, irUnits: 'MBPS' } },
    ],
  },
  ipUniAccessLinkTrunk: {},
};

/** The contract's example address as the POQ and Quote sent it (mapping P14–P20). */
export const place: Json = {
  '@type': 'FieldedAddress',
  role: 'INSTALL_LOCATION',
  streetName: 'Lijnbaansgracht',
  streetNr: '206',
  streetNrSuffix: 'H',
  postcode: '1016XA',
  city: 'Amsterdam',
  country: 'NL',
};

/** The order terms a quoted product keeps: POQ 17 item 1, Quote 42 item 3, a 36-month rolling term. */
export function orderTerms(fields: Partial<SonataOrderTerms> = {}): SonataOrderTerms {
  return {
    kind: 'mef-sonata',
    poqId: 'poq-17',
    poqItemId: '1',
    quoteId: 'quote-42',
    quoteItemId: '3',
    productOfferingId: 'bia-fiber-dia',
    itemTerm: {
      name: '36 months',
      duration: { amount: 36, units: 'calendarMonths' },
      endOfTermAction: 'roll',
      rollInterval: { amount: 1, units: 'calendarMonths' },
    },
    productConfiguration: configuration,
    place: [place],
    validFor: { startDateTime: '2026-11-01T00:00:00Z', endDateTime: '2026-12-31T00:00:00Z' },
    ...fields,
  };
}

/** A supplier order of one 36-month item, due 1 February 2027. */
export function orderToPlace(fields: Partial<SupplierOrderToPlace> = {}): SupplierOrderToPlace {
  return {
    externalId: 'sor_0001',
    requestedCompletionDate: new Date('2027-02-01T00:00:00Z'),
    contact: { name: 'Gateway operations', emailAddress: 'noc@gateway.example', number: '+31 20 555 0100' },
    billingAccountId: 'BA-7731',
    items: [{ id: '1', terms: orderTerms(), contractTermMonths: 36 }],
    ...fields,
  };
}

/** Sonata settings of a seller at `baseUrl` (its token endpoint at `/token`). */
export function settingsFor(
  baseUrl: string,
  fields: Partial<SonataSourceSettings> = {},
): SonataSourceSettings {
  return {
    baseUrl: `${baseUrl}/seller`,
    oauth2: { tokenUrl: `${baseUrl}/token`, clientId: 'gateway', clientSecret: 'order-seller-secret-42' },
    buyerContact: {
      name: 'Gateway operations',
      emailAddress: 'noc@gateway.example',
      number: '+31 20 555 0100',
    },
    productOfferings: [
      {
        productOfferingId: 'bia-fiber-dia',
        technologyType: 'FIBER',
        connectionType: 'DIA',
        bandwidths: [{ download: 100_000, upload: 100_000 }],
        contractTerms: [36],
      },
    ],
    interaction: 'instant',
    poll: { initialDelayMs: 5, maxDelayMs: 40 },
    orderPoll: { initialDelayMs: 5, maxDelayMs: 40 },
    ...fields,
  };
}

const epoch = new Date('2026-11-01T09:00:00Z');

/** A `mef-sonata` source row. */
export function sourceRow(fields: Partial<SourceRow> = {}): SourceRow {
  return {
    id: newId('source'),
    instanceId: newId('instance'),
    key: 'carrier-sonata',
    name: 'Carrier (Sonata)',
    network: 'Carrier',
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

const sellerContact = {
  role: 'sellerContact',
  name: 'Carrier order desk',
  emailAddress: 'orders@carrier.example',
  number: '+31 20 555 0199',
};

/**
 * A `ProductOrder` as a seller answers a create (R16 echo, R17 `id`, `state`, `sellerContact`), every item in
 * `state` with the fields given per item id.
 */
export function productOrderAnswer(
  body: Json,
  fields: { id?: string; state?: string; items?: Record<string, Json> } = {},
): Json {
  const items = body.productOrderItem as Json[];
  return {
    ...body,
    id: fields.id ?? 'po-1001',
    orderDate: '2026-11-02T10:00:00Z',
    state: fields.state ?? 'acknowledged',
    relatedContactInformation: [...(body.relatedContactInformation as Json[]), sellerContact],
    productOrderItem: items.map((item) => ({
      ...item,
      state: 'acknowledged',
      ...fields.items?.[String(item.id)],
    })),
  };
}

/** A `MEFProductOrderCharge` for item 1 of order po-1001: a blocking construction NRC and a monthly change. */
export function chargeAnswer(fields: Json = {}): Json {
  return {
    id: 'charge-7',
    creationDate: '2026-11-03T08:00:00Z',
    responseDueDate: '2026-11-10T08:00:00Z',
    state: 'awaitingResponse',
    productOrderItem: { productOrderId: 'po-1001', productOrderItemId: '1' },
    chargeItem: [
      {
        id: 'ci-1',
        activityType: 'new',
        priceType: 'nonRecurring',
        priceCategory: 'construction',
        blocking: true,
        price: { dutyFreeAmount: { unit: 'EUR', value: 1250.5 } },
        state: 'awaitingResponse',
      },
      {
        id: 'ci-2',
        activityType: 'change',
        priceType: 'recurring',
        priceCategory: 'other',
        recurringChargePeriod: 'month',
        blocking: false,
        price: {
          dutyFreeAmount: { unit: 'EUR', value: 12.99 },
          taxIncludedAmount: { unit: 'EUR', value: 15.72 },
        },
        state: 'awaitingResponse',
      },
    ],
    ...fields,
  };
}
