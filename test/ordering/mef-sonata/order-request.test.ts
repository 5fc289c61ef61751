import { beforeAll, describe, expect, it } from 'vitest';
import {
  productOrderCreateBody,
  requestedItemTerm,
  sonataBillingAccountId,
  sonataOrderContact,
} from '../../../src/ordering/mef-sonata/order-request.js';
import { type SonataValidator, sonataValidator } from '../../helpers/sonata-openapi.js';
import { configuration, orderTerms, orderToPlace, place, settingsFor } from './fixtures.js';

/*
 * The Product Order create body (MEF 123 10.0.0 `ProductOrder_Create`): every field the rules ask of the
 * buyer, and valid against the document (and MEF 139 for the configuration).
 */

let validator: SonataValidator;
beforeAll(async () => {
  validator = await sonataValidator();
});

const valid = (body: unknown) =>
  validator.request('order', { method: 'POST', path: '/productOrder', body, query: {} });

const contactsOf = (roles: string[], number = '+31 20 555 0100') =>
  roles.map((role) => ({ role, name: 'Gateway operations', emailAddress: 'noc@gateway.example', number }));
const itemRoles = ['buyerProductOrderItemContact', 'buyerImplementationContact', 'buyerTechnicalContact'];

describe('productOrderCreateBody', () => {
  it('when one quoted item is ordered, then the body is exactly R13, R14, R30–R34 and CR5/CR6, and valid', () => {
    const body = productOrderCreateBody(orderToPlace({ endCustomerName: 'Bakkerij De Vries' }), '+31 0');
    expect(body).toEqual({
      externalId: 'sor_0001',
      relatedContactInformation: contactsOf(['productOrderContact']),
      productOrderItem: [
        {
          id: '1',
          action: 'add',
          product: {
            productOffering: { id: 'bia-fiber-dia' },
            productConfiguration: configuration,
            place: [place],
          },
          quoteItem: { quoteId: 'quote-42', id: '3' },
          productOfferingQualificationItem: { productOfferingQualificationId: 'poq-17', id: '1' },
          requestedItemTerm: {
            name: '36 months',
            duration: { amount: 36, units: 'calendarMonths' },
            endOfTermAction: 'roll',
            rollInterval: { amount: 1, units: 'calendarMonths' },
          },
          billingAccount: { id: 'BA-7731' },
          requestedCompletionDate: '2027-02-01T00:00:00.000Z',
          relatedContactInformation: contactsOf(itemRoles),
          endCustomerName: 'Bakkerij De Vries',
        },
      ],
    });
    expect(valid(body)).toEqual([]);
  });

  it('when two items are ordered and the contact has no number, then each item is complete and the fallback number is sent', () => {
    const order = orderToPlace({
      contact: { name: 'Gateway operations', emailAddress: 'noc@gateway.example' },
      items: [
        { id: '1', terms: orderTerms(), contractTermMonths: 36 },
        {
          id: '2',
          terms: orderTerms({ quoteItemId: '4', poqItemId: '2', itemTerm: null }),
          contractTermMonths: 12,
        },
      ],
    });
    const body = productOrderCreateBody(order, '+31 20 555 0999');
    const items = body.productOrderItem as Record<string, unknown>[];
    expect(body.relatedContactInformation).toEqual(contactsOf(['productOrderContact'], '+31 20 555 0999'));
    expect(items.map((item) => [item.id, item.quoteItem, item.productOfferingQualificationItem])).toEqual([
      ['1', { quoteId: 'quote-42', id: '3' }, { productOfferingQualificationId: 'poq-17', id: '1' }],
      ['2', { quoteId: 'quote-42', id: '4' }, { productOfferingQualificationId: 'poq-17', id: '2' }],
    ]);
    expect(items[1]?.relatedContactInformation).toEqual(contactsOf(itemRoles, '+31 20 555 0999'));
    expect(items[1]?.requestedItemTerm).toEqual({
      name: '12 months',
      duration: { amount: 12, units: 'calendarMonths' },
      endOfTermAction: 'roll',
      rollInterval: { amount: 1, units: 'calendarMonths' },
    });
    expect('endCustomerName' in (items[0] ?? {})).toBe(false);
    expect(valid(body)).toEqual([]);
  });

  it('when the place is a geographic point, then it is sent as quoted and the body is valid', () => {
    const point = {
      '@type': 'MEFGeographicPoint',
      role: 'INSTALL_LOCATION',
      spatialRef: 'EPSG:4326 WGS 84',
      x: '52.36801',
      y: '4.879151',
    };
    const body = productOrderCreateBody(
      orderToPlace({ items: [{ id: 'A', terms: orderTerms({ place: [point] }), contractTermMonths: 36 }] }),
      '+31 0',
    );
    const [item] = body.productOrderItem as { product: { place: unknown } }[];
    expect(item?.product.place).toEqual([point]);
    expect(valid(body)).toEqual([]);
  });

  it('when the body lacks what the document requires, then the validator says so (the check is real)', () => {
    const body = productOrderCreateBody(orderToPlace(), '+31 0');
    expect(valid({ ...body, relatedContactInformation: [] })).not.toEqual([]);
    expect(valid({ ...body, productOrderItem: [{ id: '1' }] })).not.toEqual([]);
  });
});

describe('requestedItemTerm', () => {
  it('when the quoted term auto-renews with a description, then it is sent unchanged (R38)', () => {
    const term = {
      name: '24 months',
      duration: { amount: 24, units: 'calendarMonths' },
      endOfTermAction: 'autoRenew',
      description: 'renews for the same term',
    };
    expect(requestedItemTerm(term, 36)).toEqual(term);
  });

  it('when the quoted term rolls without an interval, then a month is added (R35)', () => {
    const term = {
      name: '3 years',
      duration: { amount: 36, units: 'calendarMonths' },
      endOfTermAction: 'roll',
    };
    expect(requestedItemTerm(term, 36)).toEqual({
      ...term,
      rollInterval: { amount: 1, units: 'calendarMonths' },
    });
  });

  it('when the quote carried no term, then the contract term in calendar months, rolling monthly', () => {
    expect(requestedItemTerm(null, 60)).toEqual({
      name: '60 months',
      duration: { amount: 60, units: 'calendarMonths' },
      endOfTermAction: 'roll',
      rollInterval: { amount: 1, units: 'calendarMonths' },
    });
  });
});

describe('the defaults a source gives an order', () => {
  it('when billingAccountId is set, then it; else the buyerId; else the instance code', () => {
    const url = 'http://127.0.0.1:1';
    expect(
      sonataBillingAccountId(settingsFor(url, { billingAccountId: 'BA-1', buyerId: 'buyer-9' }), 'ACM'),
    ).toBe('BA-1');
    expect(sonataBillingAccountId(settingsFor(url, { buyerId: 'buyer-9' }), 'ACM')).toBe('buyer-9');
    expect(sonataBillingAccountId(settingsFor(url), 'ACM')).toBe('ACM');
  });

  it('when no contact is given, then the source’s buyer contact (without its organisation)', () => {
    const settings = settingsFor('http://127.0.0.1:1', {
      buyerContact: {
        name: 'NOC',
        emailAddress: 'noc@reseller.example',
        number: '+31 1',
        organization: 'Reseller',
      },
    });
    expect(sonataOrderContact(settings)).toEqual({
      name: 'NOC',
      emailAddress: 'noc@reseller.example',
      number: '+31 1',
    });
  });
});
