import { describe, expect, test } from 'vitest';
import {
  type Json,
  orderBody,
  orderSellerPerTest,
  PRODUCT,
  plus,
  STEP_MS,
  TERM,
} from './sonata-order-fixtures.js';

const { call, quote, orderIn, seller } = orderSellerPerTest();

const states = (changes: Json[]) => changes.map((change) => change.state);

describe('a Sonata seller taking product orders', () => {
  test('when an order names a quoted item, then it is acknowledged, moves to completed step by step with an expected date and a milestone, and its product is in the inventory', async () => {
    const quoteId = await quote();
    const body = orderBody(quoteId);

    const created = await call('order', 'POST', '/productOrder', body);

    expect(created.status).toBe(201);
    const { id, orderDate } = created.body;
    expect(created.body).toEqual({
      ...body,
      relatedContactInformation: [
        ...body.relatedContactInformation,
        {
          role: 'sellerContact',
          name: 'Colt Sonata desk',
          organization: 'Colt',
          emailAddress: 'sonata@colt.example',
          number: '+31 20 000 0000',
        },
      ],
      id,
      href: `${seller().url}/sonata/colt/instant/mefApi/sonata/productOrderingManagement/v10/productOrder/${id}`,
      orderDate,
      state: 'acknowledged',
      stateChange: [{ changeDate: orderDate, state: 'acknowledged' }],
      productOrderItem: [
        {
          ...body.productOrderItem[0],
          state: 'acknowledged',
          stateChange: [{ changeDate: orderDate, state: 'acknowledged' }],
        },
      ],
    });

    const done = await orderIn(id, ['completed']);
    const [item] = done.productOrderItem;
    const [, inProgressAt, completedAt] = done.stateChange.map((change: Json) => change.changeDate);
    expect(states(done.stateChange)).toEqual(['acknowledged', 'inProgress', 'completed']);
    expect(done.completionDate).toBe(completedAt);
    expect(states(item.stateChange)).toEqual(['acknowledged', 'inProgress', 'completed']);
    expect(item.stateChange.map((change: Json) => change.changeDate)).toEqual([
      orderDate,
      inProgressAt,
      completedAt,
    ]);
    expect(item.expectedCompletionDate).toBe(plus(inProgressAt, 2 * STEP_MS));
    expect(item.completionDate).toBe(completedAt);
    expect(item.itemTerm).toEqual([TERM]);
    expect(item.milestone).toEqual([
      {
        date: item.milestone[0].date,
        name: 'siteSurveyCompleted',
        note: 'Site survey done: the site can be connected.',
      },
    ]);
    expect(Date.parse(item.milestone[0].date)).toBeGreaterThan(Date.parse(inProgressAt));
    expect(Date.parse(item.milestone[0].date)).toBeLessThan(Date.parse(completedAt));
    const inventoryBase = `${seller().url}/sonata/colt/instant/mefApi/sonata/productInventory/v7`;
    expect(item.product).toEqual({
      ...PRODUCT,
      id: item.product.id,
      href: `${inventoryBase}/product/${item.product.id}`,
    });
    expect(item).not.toHaveProperty('terminationError');

    const product = await call('inventory', 'GET', `/product/${item.product.id}`);
    expect(product.status).toBe(200);
    expect(product.body).toMatchObject({
      id: item.product.id,
      href: item.product.href,
      status: 'active',
      startDate: completedAt,
      lastUpdateDate: completedAt,
      externalId: 'PO-2030-001',
      productOffering: { id: 'basic-internet-access-fiber-dia' },
      productConfiguration: PRODUCT.productConfiguration,
      billingAccount: { id: 'ba-001' },
      productOrderItem: [{ productOrderId: id, productOrderItemId: '1', productOrderHref: done.href }],
      relatedSite: [{ id: product.body.relatedSite[0].id, role: 'INSTALL_LOCATION' }],
      productTerm: [TERM],
      statusChange: [{ changeDate: completedAt, status: 'active' }],
    });
    expect(product.body.relatedSite[0].id).toMatch(/^site-[0-9a-f]{16}$/);
    expect(
      product.body.productPrice.map((price: Json) => [price.priceType, price.price.dutyFreeAmount]),
    ).toEqual([
      ['recurring', { unit: 'EUR', value: 469.95 }],
      ['nonRecurring', { unit: 'EUR', value: 1005 }],
    ]);
    expect(product.body.relatedContactInformation.map((contact: Json) => contact.role)).toEqual([
      'sellerAssuranceTechnicalContact',
      'sellerCommercialContact',
      'sellerSlaManagementContact',
    ]);
    const products = await call('inventory', 'GET', `/product?productOrderId=${id}`);
    expect(products.body.map((found: Json) => [found.id, found.status])).toEqual([
      [item.product.id, 'active'],
    ]);
    expect((await call('inventory', 'GET', '/product?status=terminated')).body).toEqual([]);
    expect((await call('inventory', 'GET', '/product/no-such-product')).status).toBe(404);
  });

  test('when orders are listed by externalId, then only the order with that externalId is found, as ProductOrder_Find', async () => {
    const quoteId = await quote();
    const first = await call('order', 'POST', '/productOrder', orderBody(quoteId, ['1'], 'PO-A'));
    const second = await call('order', 'POST', '/productOrder', orderBody(quoteId, ['1'], 'PO-B'));

    const found = await call('order', 'GET', '/productOrder?externalId=PO-B');

    expect(found.status).toBe(200);
    expect(found.body).toEqual([
      {
        id: second.body.id,
        orderDate: second.body.orderDate,
        state: 'acknowledged',
        externalId: 'PO-B',
        projectId: 'amsterdam-offices',
      },
    ]);
    expect(found.headers.get('x-total-count')).toBe('1');
    expect((await call('order', 'GET', '/productOrder?externalId=PO-C')).body).toEqual([]);
    const all = await call('order', 'GET', '/productOrder?projectId=amsterdam-offices&limit=1&offset=1');
    expect([all.body.map((order: Json) => order.id), all.headers.get('x-total-count')]).toEqual([
      [second.body.id],
      '2',
    ]);
    expect(first.body.id).not.toBe(second.body.id);
    // Another buyer (buyerId) sees none of them.
    expect((await call('order', 'GET', '/productOrder?externalId=PO-B&buyerId=someone-else')).body).toEqual(
      [],
    );
    expect((await call('order', 'GET', `/productOrder/${second.body.id}?buyerId=someone-else`)).status).toBe(
      404,
    );
  });

  test('when the order knob is reject, then the order is rejected after its acknowledgement, every item rejected with a termination error', async () => {
    const quoteId = await quote(2);
    const created = await call('order', 'POST', '/productOrder', orderBody(quoteId, ['1', '2']), {
      order: 'reject',
    });
    expect([created.status, created.body.state]).toEqual([201, 'acknowledged']);

    const rejected = await orderIn(created.body.id, ['rejected']);

    const rejectedAt = rejected.stateChange[1].changeDate;
    expect(states(rejected.stateChange)).toEqual(['acknowledged', 'rejected']);
    expect(rejected.completionDate).toBe(rejectedAt);
    expect(
      rejected.productOrderItem.map((item: Json) => [
        states(item.stateChange),
        item.terminationError,
        item.expectedCompletionDate,
      ]),
    ).toEqual(
      [0, 1].map((index) => [
        ['acknowledged', 'rejected'],
        [
          {
            code: 'otherIssue',
            propertyPath: `/productOrderItem/${index}`,
            value: 'The seller cannot accept this order item.',
          },
        ],
        undefined,
      ]),
    );
  });

  test('when an item asks another term than its quote gave, then that item is rejected (MEF 123 R38) and the other rejected.validated', async () => {
    const quoteId = await quote(2);
    const body = orderBody(quoteId, ['1', '2']);
    body.productOrderItem[1] = {
      ...body.productOrderItem[1],
      requestedItemTerm: { ...TERM, duration: { amount: 12, units: 'calendarMonths' }, name: '12 months' },
    } as (typeof body.productOrderItem)[number];
    const created = await call('order', 'POST', '/productOrder', body);

    const rejected = await orderIn(created.body.id, ['rejected']);

    expect(rejected.productOrderItem.map((item: Json) => [item.state, item.terminationError])).toEqual([
      ['rejected.validated', undefined],
      [
        'rejected',
        [
          {
            code: 'invalidValue',
            propertyPath: '/productOrderItem/1/requestedItemTerm',
            value: 'The term differs from the quoted 36 calendarMonths, autoRenew (MEF 123 R38).',
          },
        ],
      ],
    ]);
  });

  test('when the order knob is fail-item, then the first item fails with an error and no expected date, the other completes, and the order is partial', async () => {
    const quoteId = await quote(2);
    const created = await call('order', 'POST', '/productOrder', orderBody(quoteId, ['1', '2']), {
      order: 'fail-item',
    });

    const partial = await orderIn(created.body.id, ['partial']);

    const endedAt = partial.stateChange.at(-1).changeDate;
    expect(states(partial.stateChange)).toEqual(['acknowledged', 'inProgress', 'partial']);
    expect(partial.completionDate).toBe(endedAt);
    const [failed, completed] = partial.productOrderItem;
    expect(states(failed.stateChange)).toEqual(['acknowledged', 'inProgress', 'failed']);
    expect(failed.terminationError).toEqual([
      {
        code: 'otherIssue',
        propertyPath: '/productOrderItem/0',
        value: 'The installation failed at the site.',
      },
    ]);
    expect([failed.expectedCompletionDate, failed.completionDate, failed.product.id]).toEqual([
      undefined,
      undefined,
      undefined,
    ]);
    expect(states(completed.stateChange)).toEqual(['acknowledged', 'inProgress', 'completed']);
    expect(completed.completionDate).toBe(endedAt);
    expect((await call('inventory', 'GET', `/product/${completed.product.id}`)).body.status).toBe('active');
    expect((await call('inventory', 'GET', `/product?productOrderId=${created.body.id}`)).body).toHaveLength(
      1,
    );
  });

  test('when a one-item order meets fail-item, then the order fails', async () => {
    const quoteId = await quote();
    const created = await call('order', 'POST', '/productOrder', orderBody(quoteId), { order: 'fail-item' });

    const failed = await orderIn(created.body.id, ['failed']);

    expect(states(failed.stateChange)).toEqual(['acknowledged', 'inProgress', 'failed']);
    expect(failed.productOrderItem[0].state).toBe('failed');
  });
});
