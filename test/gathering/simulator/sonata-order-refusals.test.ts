import { describe, expect, test } from 'vitest';
import {
  type Json,
  LISTENER_PATH,
  orderBody,
  orderItem,
  orderSellerPerTest,
  PRODUCT,
  TERM,
} from './sonata-order-fixtures.js';

// A sync-only seller: it answers POQs and Quotes at once, yet orders are still acknowledged first.
const { call, quote, orderIn, listenerUrl } = orderSellerPerTest('sync-only');

describe('a Sonata seller refusing product orders', () => {
  test('when the seller is sync-only, then an order is still acknowledged and completed step by step, and /hub answers 501', async () => {
    const quoteId = await quote();
    const created = await call('order', 'POST', '/productOrder', orderBody(quoteId));
    expect([created.status, created.body.state]).toEqual([201, 'acknowledged']);
    const done = await orderIn(created.body.id, ['completed']);
    expect(done.stateChange.map((change: Json) => change.state)).toEqual([
      'acknowledged',
      'inProgress',
      'completed',
    ]);

    const hub = await call('order', 'POST', '/hub', { callback: `http://127.0.0.1:1${LISTENER_PATH}` });
    expect([hub.status, hub.body]).toEqual([
      501,
      { code: 'notImplemented', reason: 'This seller sends no notifications.' },
    ]);
    expect(listenerUrl()).toContain(LISTENER_PATH);
  });

  test('when the body is not a ProductOrder_Create, then 400 invalidBody names the first problem', async () => {
    const quoteId = await quote();
    const install = orderBody(quoteId);
    (install.productOrderItem[0] as { action: string }).action = 'install';
    const { productOrderItem: _, ...noItems } = orderBody(quoteId);

    const answers = await Promise.all([
      call('order', 'POST', '/productOrder', install),
      call('order', 'POST', '/productOrder', noItems),
      call('order', 'POST', '/productOrder', { ...orderBody(quoteId), productOrderItem: [] }),
    ]);

    expect(answers.map((answer) => [answer.status, answer.body])).toEqual([
      [
        400,
        {
          code: 'invalidBody',
          reason: 'The body does not follow ProductOrder_Create.',
          message: answers[0]?.body.message,
        },
      ],
      [
        400,
        {
          code: 'invalidBody',
          reason: 'The body does not follow ProductOrder_Create.',
          message: answers[1]?.body.message,
        },
      ],
      [
        400,
        {
          code: 'invalidBody',
          reason: 'The body does not follow ProductOrder_Create.',
          message: answers[2]?.body.message,
        },
      ],
    ]);
    expect(answers.map((answer) => answer.body.message.split(':')[0])).toEqual([
      '/productOrderItem/0/action',
      '/productOrderItem',
      '/productOrderItem',
    ]);
  });

  test('when the order knob is unknown, then 400 invalidQuery', async () => {
    const answer = await call('order', 'GET', '/productOrder', undefined, { order: 'explode' });
    expect([answer.status, answer.body]).toEqual([
      400,
      {
        code: 'invalidQuery',
        reason: 'Unknown order knob explode: use complete, hold-charge, reject, fail-item.',
      },
    ]);
  });

  test('when the order or an item lacks what MEF 123 R13, R14, R33–R36 require, then 422 lists every problem', async () => {
    const quoteId = await quote();
    const bare = { id: '1', action: 'add', product: PRODUCT, quoteItem: { id: '1', quoteId } };
    const rolling = { ...orderItem('2', quoteId), requestedItemTerm: { ...TERM, endOfTermAction: 'roll' } };
    const withId = { ...orderItem('3', quoteId), product: { ...PRODUCT, id: 'mine' } };
    const body = {
      ...orderBody(quoteId),
      relatedContactInformation: [
        { role: 'buyerContactInformation', name: 'D', emailAddress: 'd@b.example', number: '1' },
      ],
      productOrderItem: [bare, rolling, withId],
    };

    const answer = await call('order', 'POST', '/productOrder', body);

    expect(answer.status).toBe(422);
    expect(answer.body).toEqual([
      {
        code: 'missingProperty',
        propertyPath: '/relatedContactInformation',
        reason: 'A productOrderContact contact is required (MEF 123 R13).',
      },
      {
        code: 'missingProperty',
        propertyPath: '/productOrderItem/0/requestedCompletionDate',
        reason: 'requestedCompletionDate is required (MEF 123 R14).',
      },
      {
        code: 'missingProperty',
        propertyPath: '/productOrderItem/0/relatedContactInformation',
        reason:
          'Contacts with the roles buyerProductOrderItemContact, buyerImplementationContact, buyerTechnicalContact are required (MEF 123 R14).',
      },
      {
        code: 'missingProperty',
        propertyPath: '/productOrderItem/0/billingAccount',
        reason: 'A billingAccount is required (MEF 123 R33).',
      },
      {
        code: 'missingProperty',
        propertyPath: '/productOrderItem/0/requestedItemTerm',
        reason: 'A requestedItemTerm is required (MEF 123 R34).',
      },
      {
        code: 'missingProperty',
        propertyPath: '/productOrderItem/1/requestedItemTerm/rollInterval',
        reason: 'A rolling term needs its rollInterval (MEF 123 R35).',
      },
      {
        code: 'unexpectedProperty',
        propertyPath: '/productOrderItem/2/product/id',
        reason: 'The seller assigns the product id of a new product (MEF 123 R36).',
      },
    ]);
  });

  test('when an item names no quote, an unknown quote item, another buyer’s quote or a budgetary one, or another action than add, then 422', async () => {
    const quoteId = await quote();
    const contact = [
      {
        role: 'buyerContactInformation',
        name: 'Desk',
        emailAddress: 'desk@buyer.example',
        number: '+31 20 1',
      },
    ];
    const budgetary = await call('quote', 'POST', '/quote', {
      instantSyncQuote: true,
      buyerRequestedQuoteLevel: 'budgetary',
      relatedContactInformation: contact,
      quoteItem: [{ id: '1', action: 'add', product: PRODUCT, requestedQuoteItemTerm: TERM }],
    });
    expect(budgetary.body.state).toBe('answered');
    const { quoteItem: _, ...unquoted } = orderItem('1', quoteId);
    const items = [
      unquoted,
      orderItem('2', quoteId, '7'),
      orderItem('3', budgetary.body.id),
      { ...orderItem('4', quoteId), action: 'modify' },
      orderItem('4', quoteId),
    ];

    const answer = await call('order', 'POST', '/productOrder', {
      ...orderBody(quoteId),
      productOrderItem: items,
    });
    const otherBuyer = await call('order', 'POST', '/productOrder', orderBody(quoteId), {
      buyerId: 'someone-else',
    });

    expect([answer.status, answer.body]).toEqual([
      422,
      [
        {
          code: 'missingProperty',
          propertyPath: '/productOrderItem/0/quoteItem',
          reason: 'This seller requires a quote before an order (MEF 123 CR6<O5).',
        },
        {
          code: 'referenceNotFound',
          propertyPath: '/productOrderItem/1/quoteItem',
          reason: `No item 7 in a quote ${quoteId} of this seller.`,
        },
        {
          code: 'invalidValue',
          propertyPath: '/productOrderItem/2/quoteItem',
          reason: 'Quote item 1 is answered, not orderable.',
        },
        {
          code: 'invalidValue',
          propertyPath: '/productOrderItem/3/action',
          reason: 'This seller qualifies, quotes and orders new products (add) only.',
        },
        { code: 'invalidValue', propertyPath: '/productOrderItem/4/id', reason: 'Item id 4 is used twice.' },
      ],
    ]);
    expect([otherBuyer.status, otherBuyer.body]).toEqual([
      422,
      [
        {
          code: 'referenceNotFound',
          propertyPath: '/productOrderItem/0/quoteItem',
          reason: `No item 1 in a quote ${quoteId} of this seller.`,
        },
      ],
    ]);
  });

  test('when an order or charge id is unknown, then 404', async () => {
    expect((await call('order', 'GET', '/productOrder/nope')).body).toEqual({
      code: 'notFound',
      reason: 'No productOrder nope.',
    });
    expect((await call('order', 'GET', '/charge/nope')).status).toBe(404);
    expect((await call('inventory', 'GET', '/product/nope')).body).toEqual({
      code: 'notFound',
      reason: 'No product nope.',
    });
  });
});
