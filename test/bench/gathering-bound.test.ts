import { describe, expect, it } from 'vitest';
import { gatheringBound, sonataCallOf, sonataWork, supplierCallOf } from '../../bench/lib/gathering-bound.js';

describe('gatheringBound', () => {
  const calls = [
    { source: 'a', ms: 100 },
    { source: 'a', ms: 300 },
    { source: 'a', ms: 200 },
    { source: 'b', ms: 400 },
    { source: 'c', ms: 50 },
  ];

  it('when the worker pool binds, then the bound is Σ latency ÷ concurrency', () => {
    const bound = gatheringBound(calls, { concurrency: 2, perSourceConcurrency: 4 });

    expect(bound).toEqual({
      boundMs: 525,
      globalTermMs: 525,
      perSourceTermMs: 150,
      longestCallMs: 400,
      calls: 5,
      totalCallMs: 1050,
    });
  });

  it('when one source’s bulkhead binds, then the bound is that source’s Σ latency ÷ its concurrency', () => {
    const bound = gatheringBound(calls, {
      concurrency: 10,
      perSourceConcurrency: new Map([
        ['a', 1],
        ['b', 1],
        ['c', 1],
      ]),
    });

    expect(bound.perSourceTermMs).toBe(600);
    expect(bound.globalTermMs).toBe(105);
    expect(bound.boundMs).toBe(600);
  });

  it('when concurrency is ample, then the bound is the longest single call', () => {
    expect(gatheringBound(calls, { concurrency: 100, perSourceConcurrency: 100 }).boundMs).toBe(400);
  });

  it('when there are no calls, then the bound is 0', () => {
    expect(gatheringBound([], { concurrency: 64, perSourceConcurrency: 16 }).boundMs).toBe(0);
  });
});

describe('supplierCallOf', () => {
  it.each([
    ['/suppliers/kpn-wba/availability', { source: 'kpn-wba' }],
    ['/suppliers/colt/availability?mode=503', { source: 'colt' }],
    ['/suppliers/colt/availability/x', null],
    ['/stats', null],
  ])('when the path is %s, then the call is %o', (path, call) => {
    expect(supplierCallOf('POST', path)).toEqual(call);
  });
});

describe('sonataCallOf', () => {
  const poq = '/sonata/colt/deferred/mefApi/sonata/productOfferingQualification/v7';
  const quote = '/sonata/colt/deferred/mefApi/sonata/quoteManagement/v8';
  it.each([
    ['POST', `${poq}/productOfferingQualification`, { source: 'colt', kind: 'create' }],
    ['POST', `${quote}/quote?buyerId=b`, { source: 'colt', kind: 'create' }],
    ['GET', `${poq}/productOfferingQualification/8c0e`, { source: 'colt', kind: 'poll' }],
    ['GET', `${quote}/quote/8c0e?sellerId=colt`, { source: 'colt', kind: 'poll' }],
    ['GET', `${quote}/quote`, { source: 'colt', kind: 'other' }],
    ['POST', `${poq}/hub`, { source: 'colt', kind: 'other' }],
    ['POST', '/sonata/colt/oauth2/token', { source: 'colt', kind: 'other' }],
    ['POST', '/suppliers/colt/availability', null],
  ])('when %s %s is answered, then the call is %o', (method, path, call) => {
    expect(sonataCallOf(method, path)).toEqual(call);
  });
});

describe('sonataWork', () => {
  it('when a source created two resources and polled three times, then each resource is a create, the seller’s processing and one mean read', () => {
    const work = sonataWork(
      [
        { source: 'colt', ms: 100, kind: 'create' },
        { source: 'colt', ms: 60, kind: 'poll' },
        { source: 'colt', ms: 200, kind: 'create' },
        { source: 'colt', ms: 90, kind: 'poll' },
        { source: 'colt', ms: 120, kind: 'poll' },
        { source: 'colt', ms: 30, kind: 'other' },
        { source: 'zayo', ms: 50, kind: 'create' },
      ],
      300,
    );

    expect(work).toEqual({
      calls: [
        { source: 'colt', ms: 100, kind: 'create' },
        { source: 'colt', ms: 90, kind: 'poll' },
        { source: 'colt', ms: 200, kind: 'create' },
        { source: 'colt', ms: 90, kind: 'poll' },
        { source: 'zayo', ms: 50, kind: 'create' },
        { source: 'zayo', ms: 0, kind: 'poll' },
      ],
      jobs: [
        { source: 'colt', ms: 490 },
        { source: 'colt', ms: 590 },
        { source: 'zayo', ms: 350 },
      ],
    });
  });

  it('when slot jobs are given, then the pool term and the longest job are over them and the bulkhead term over the calls', () => {
    const work = sonataWork(
      [
        { source: 'colt', ms: 100, kind: 'create' },
        { source: 'colt', ms: 100, kind: 'poll' },
      ],
      300,
    );
    const bound = gatheringBound([{ source: 'kpn', ms: 200 }, ...work.calls], {
      concurrency: 2,
      perSourceConcurrency: 1,
      slotJobs: [{ source: 'kpn', ms: 200 }, ...work.jobs],
    });

    expect(bound).toEqual({
      boundMs: 500,
      globalTermMs: 350,
      perSourceTermMs: 200,
      longestCallMs: 500,
      calls: 3,
      totalCallMs: 700,
    });
  });
});
