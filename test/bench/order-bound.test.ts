import { describe, expect, it } from 'vitest';
import { type OrderCall, orderBound, orderCallOf } from '../../bench/lib/order-bound.js';

describe('orderBound', () => {
  // Seller a: two placements, three reads (one found its order still open), two product reads.
  // Seller b: one placement, one read, one product read. And one lookup by externalId.
  const calls: OrderCall[] = [
    { source: 'a', kind: 'create', ms: 100 },
    { source: 'a', kind: 'create', ms: 200 },
    { source: 'a', kind: 'read', ms: 50 },
    { source: 'a', kind: 'read', ms: 150 },
    { source: 'a', kind: 'read', ms: 100 },
    { source: 'a', kind: 'product', ms: 80 },
    { source: 'a', kind: 'product', ms: 120 },
    { source: 'b', kind: 'create', ms: 300 },
    { source: 'b', kind: 'read', ms: 200 },
    { source: 'b', kind: 'product', ms: 100 },
    { source: 'b', kind: 'lookup', ms: 90 },
    { source: 'b', kind: 'other', ms: 500 },
  ];

  it('when the seller works longer than the calls take, then the bound is the longest placement → read chain', () => {
    const bound = orderBound(calls, { concurrency: 2, perSourceConcurrency: 1, processingMs: 1000 });

    // Needed: a = 300 placed + 2 reads × mean 100 + 200 of products = 700; b = 300 + 200 + 100 = 600.
    // Chains: a 200 + 1000 + 100 + 1 × 100 = 1400; b 300 + 1000 + 200 + 100 = 1600.
    expect(bound).toEqual({
      boundMs: 1600,
      globalTermMs: 650,
      perSourceTermMs: 700,
      longestCallMs: 1600,
      calls: 9,
      totalCallMs: 1300,
      extraReads: 1,
      lookups: 1,
    });
  });

  it('when the worker pool binds, then the bound is Σ needed calls ÷ concurrency', () => {
    const bound = orderBound(calls, { concurrency: 1, perSourceConcurrency: 4, processingMs: 0 });

    expect([bound.boundMs, bound.globalTermMs, bound.perSourceTermMs, bound.longestCallMs]).toEqual([
      1300, 1300, 175, 600,
    ]);
  });

  it('when there are no placements, then the bound is 0', () => {
    expect(orderBound([], { concurrency: 64, perSourceConcurrency: 16, processingMs: 999 }).boundMs).toBe(0);
  });
});

describe('orderCallOf', () => {
  const order = '/sonata/colt/deferred/mefApi/sonata/productOrderingManagement/v10';
  it.each([
    ['POST', `${order}/productOrder`, { source: 'colt', kind: 'create' }],
    ['GET', `${order}/productOrder/4b0c`, { source: 'colt', kind: 'read' }],
    ['GET', `${order}/productOrder?externalId=sor_1&limit=1`, { source: 'colt', kind: 'lookup' }],
    ['GET', `${order}/productOrder?state=completed`, { source: 'colt', kind: 'other' }],
    [
      'GET',
      '/sonata/ziggo/deferred/mefApi/sonata/productInventory/v7/product/p1',
      { source: 'ziggo', kind: 'product' },
    ],
    ['GET', `${order}/charge/c1`, { source: 'colt', kind: 'other' }],
    ['POST', '/sonata/colt/oauth2/token', { source: 'colt', kind: 'other' }],
    [
      'POST',
      '/sonata/colt/deferred/mefApi/sonata/quoteManagement/v8/quote',
      { source: 'colt', kind: 'other' },
    ],
    ['GET', '/stats', null],
  ])('when the call is %s %s, then it is %o', (method, path, call) => {
    expect(orderCallOf(method, path)).toEqual(call);
  });
});
