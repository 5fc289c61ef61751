import { beforeAll, describe, expect, test } from 'vitest';
import { type SonataValidator, sonataApiOf, sonataValidator } from '../../helpers/sonata-openapi.js';

let validator: SonataValidator;
beforeAll(async () => {
  validator = await sonataValidator();
});

const BIA = 'urn:mef:lso:spec:cantata-sonata:basic-internet-access:v1.0.0:all';
const configuration = () => ({
  '@type': BIA,
  ipvc: { ipvcEndPoint: {} },
  ipUni: {},
  ipUniAccessLinkTrunk: {},
  ipUniAccessLink: {
    egressBwpEnvelope: [{ maxIr: { irValue: 100, irUnits: 'MBPS' } }],
    ingressBwpEnvelope: [{ maxIr: { irValue: 100, irUnits: 'MBPS' } }],
  },
});
const poqCreate = () => ({
  instantSyncQualification: true,
  relatedContactInformation: [
    { role: 'buyerContactInformation', name: 'Desk', emailAddress: 'desk@buyer.example', number: '+31 20 1' },
  ],
  productOfferingQualificationItem: [
    {
      id: '1',
      action: 'add',
      product: {
        productOffering: { id: 'basic-internet-access-ftth-shared' },
        productConfiguration: configuration(),
        place: [
          {
            '@type': 'FieldedAddress',
            role: 'INSTALL_LOCATION',
            streetName: 'Lijnbaansgracht',
            streetNr: '206',
            postcode: '1016XA',
            city: 'Amsterdam',
            country: 'NL',
          },
        ],
      },
    },
  ],
});
const POQ_PATH =
  '/sonata/colt/instant/mefApi/sonata/productOfferingQualification/v7/productOfferingQualification';

describe('the Sonata OpenAPI validator', () => {
  test('when a POQ request follows the documents, then it has no errors (full path with query or path below the base)', () => {
    expect(
      validator.request('poq', { method: 'POST', path: `${POQ_PATH}?mode=503`, body: poqCreate() }),
    ).toEqual([]);
    expect(
      validator.request('poq', { method: 'POST', path: '/productOfferingQualification', body: poqCreate() }),
    ).toEqual([]);
  });

  test('when a required field is missing, then an error names it', () => {
    const body: Record<string, unknown> = poqCreate();
    delete body.relatedContactInformation;
    expect(validator.request('poq', { method: 'POST', path: POQ_PATH, body })).toEqual([
      `POST /productOfferingQualification request: (root) must have required property 'relatedContactInformation' {"missingProperty":"relatedContactInformation"}`,
    ]);
  });

  test('when an enum has a value it does not list, then an error names the field', () => {
    const body = poqCreate();
    (body.productOfferingQualificationItem[0] as { action: string }).action = 'install';
    const errors = validator.request('poq', { method: 'POST', path: POQ_PATH, body });
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain(
      '/productOfferingQualificationItem/0/action must be equal to one of the allowed values',
    );
  });

  test('when a field has the wrong type, then an error names it', () => {
    const body = { ...poqCreate(), instantSyncQualification: 'yes' };
    expect(validator.request('poq', { method: 'POST', path: POQ_PATH, body })).toEqual([
      'POST /productOfferingQualification request: /instantSyncQualification must be boolean {"type":"boolean"}',
    ]);
  });

  test('when a FieldedAddress place lacks streetName, then the discriminator mapping makes it an error', () => {
    const body = poqCreate();
    const place: { streetName?: string } = body.productOfferingQualificationItem[0]?.product.place[0] ?? {};
    delete place.streetName;
    expect(validator.request('poq', { method: 'POST', path: POQ_PATH, body })).toEqual([
      `POST /productOfferingQualification request: /productOfferingQualificationItem/0/product/place/0 must have required property 'streetName' {"missingProperty":"streetName"}`,
      'POST /productOfferingQualification request: /productOfferingQualificationItem/0/product/place/0 must match "then" schema {"failingKeyword":"then"}',
    ]);
  });

  test('when a product configuration breaks its MEF 139 schema or names an unknown @type, then the errors say where', () => {
    const body = poqCreate();
    const product = body.productOfferingQualificationItem[0]?.product as {
      productConfiguration: Record<string, unknown>;
    };
    product.productConfiguration.ipUniAccessLink = {
      egressBwpEnvelope: [{ maxIr: { irValue: '100', irUnits: 'MBITS' } }],
    };
    delete product.productConfiguration.ipvc;
    expect(validator.request('poq', { method: 'POST', path: POQ_PATH, body })).toEqual([
      `POST /productOfferingQualification request /productOfferingQualificationItem/0/product/productConfiguration (${BIA}): (root) must have required property 'ipvc' {"missingProperty":"ipvc"}`,
      `POST /productOfferingQualification request /productOfferingQualificationItem/0/product/productConfiguration (${BIA}): /ipUniAccessLink/egressBwpEnvelope/0/maxIr/irValue must be number {"type":"number"}`,
      `POST /productOfferingQualification request /productOfferingQualificationItem/0/product/productConfiguration (${BIA}): /ipUniAccessLink/egressBwpEnvelope/0/maxIr/irUnits must be equal to one of the allowed values {"allowedValues":["BPS","KBPS","MBPS","GBPS","TBPS","PBPS","EBPS","ZBPS","YBPS"]}`,
    ]);
    product.productConfiguration['@type'] = 'urn:example:other';
    expect(validator.request('poq', { method: 'POST', path: POQ_PATH, body })).toEqual([
      'POST /productOfferingQualification request: /productOfferingQualificationItem/0/product/productConfiguration/@type names no vendored MEF 139 product schema: urn:example:other',
    ]);
  });

  test('when a response status or body is not documented, then it is an error; 429 and 503 get the MEF error shapes', () => {
    const path = '/quote/42';
    expect(validator.response('quote', { method: 'GET', path, status: 200, body: { id: '42' } })).toEqual([
      `GET /quote/{id} 200: (root) must have required property 'buyerRequestedQuoteLevel' {"missingProperty":"buyerRequestedQuoteLevel"}`,
      `GET /quote/{id} 200: (root) must have required property 'instantSyncQuote' {"missingProperty":"instantSyncQuote"}`,
      `GET /quote/{id} 200: (root) must have required property 'quoteDate' {"missingProperty":"quoteDate"}`,
      `GET /quote/{id} 200: (root) must have required property 'quoteItem' {"missingProperty":"quoteItem"}`,
    ]);
    expect(validator.response('quote', { method: 'GET', path, status: 418, body: {} })).toEqual([
      'GET /quote/{id}: answered 418, not one of 200, 400, 401, 403, 404, 500',
    ]);
    expect(
      validator.response('quote', {
        method: 'POST',
        path: '/quote',
        status: 422,
        body: { code: 'otherIssue', reason: 'x' },
      }),
    ).toEqual(['POST /quote 422: (root) must be array {"type":"array"}']);
    expect(
      validator.response('quote', { method: 'GET', path, status: 429, body: { reason: 'slow down' } }),
    ).toEqual([`GET /quote/{id} 429: (root) must have required property 'code' {"missingProperty":"code"}`]);
    expect(
      validator.response('quote', { method: 'GET', path, status: 503, body: { code: 'busy', reason: 'x' } }),
    ).toEqual([
      'GET /quote/{id} 503: /code must be equal to one of the allowed values {"allowedValues":["internalError"]}',
    ]);
    expect(validator.response('poq', { method: 'DELETE', path: '/hub/1', status: 204 })).toEqual([]);
  });

  test('when a notification is sent to the wrong listener or lacks its event id, then both are errors', () => {
    const path =
      '/buyer/secret/mefApi/sonata/productOfferingQualificationNotification/v7/listener/poqStateChangeEvent';
    const event = {
      eventId: 'e1',
      eventTime: '2026-01-01T00:00:00Z',
      eventType: 'poqStateChangeEvent',
      event: { id: 'p1' },
    };
    expect(validator.notification('poq', { path, body: event })).toEqual([]);
    expect(
      validator.notification('poq', {
        path,
        body: { eventTime: event.eventTime, eventType: 'poqItemStateChangeEvent', event: { id: 'p1' } },
      }),
    ).toEqual([
      `POST /listener/poqStateChangeEvent event: (root) must have required property 'eventId' {"missingProperty":"eventId"}`,
      'POST /listener/poqStateChangeEvent: eventType poqItemStateChangeEvent sent to the listener /listener/poqStateChangeEvent',
    ]);
  });

  test('when an order event uses the notification document’s type names, then it passes; the guide’s other spelling does not', () => {
    const base = '/buyer/mefApi/sonata/productOrderingNotification/v10/listener';
    const event = (eventType: string) => ({
      eventId: 'e1',
      eventTime: '2026-01-01T00:00:00Z',
      eventType,
      event: { id: 'o1', orderItemId: '1' },
    });
    const type = 'productOrderItemExpectedCompletionDateSet';
    expect(validator.notification('order', { path: `${base}/${type}`, body: event(type) })).toEqual([]);
    expect(
      validator.notification('order', { path: `${base}/${type}Event`, body: event(`${type}Event`) }),
    ).toEqual([`POST /listener/${type}Event: no such listener in the order notification document`]);
  });

  test('when an exchange is with Product Order or Product Inventory, then sonataApiOf names the API and the documents apply', () => {
    const order = '/sonata/colt/instant/mefApi/sonata/productOrderingManagement/v10/charge/c1';
    const product = '/sonata/colt/instant/mefApi/sonata/productInventory/v7/product/p1';
    expect([sonataApiOf(order), sonataApiOf(product), sonataApiOf('/elsewhere')]).toEqual([
      'order',
      'inventory',
      null,
    ]);
    expect(
      validator.request('order', { method: 'PATCH', path: order, body: { chargeItem: [{ id: '1' }] } }),
    ).toEqual([
      `PATCH /charge/{id} request: /chargeItem/0 must have required property 'acceptanceIndicator' {"missingProperty":"acceptanceIndicator"}`,
    ]);
    expect(
      validator.response('inventory', {
        method: 'GET',
        path: product,
        status: 200,
        body: { id: 'p1', status: 'active', startDate: '2026-01-01T00:00:00Z' },
      }),
    ).toEqual([]);
    expect(validator.notification('inventory', { path: '/listener/x', body: {} })).toEqual([
      'the inventory API has no notification document',
    ]);
  });
});
