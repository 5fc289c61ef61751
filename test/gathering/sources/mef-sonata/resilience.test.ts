import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type SonataSeller, startSonataSeller } from '../../../../src/gathering/simulator/sonata/server.js';
import type { SonataSourceSettings } from '../../../../src/gathering/sources/mef-sonata/settings.js';
import { createMefSonataSource } from '../../../../src/gathering/sources/mef-sonata/source.js';
import { sendToSupplier } from '../../../../src/gathering/sources/supplier-http.js';
import { type SonataValidator, sonataValidator } from '../../../helpers/sonata-openapi.js';
import {
  failure,
  fastPolicy,
  queryOf,
  requestRow,
  sellerSettings,
  sonataProblems,
  sourceRow,
} from './fixtures.js';

/*
 * How the adapter copes with the failures the simulator's sellers can be made to show: tokens that are
 * shared, forgotten or expired; 5xx and Retry-After; the seller's error model; the breaker; concurrency;
 * hangs and aborts. Calls and answers of a seller of the test's own are in resilience-own-seller.test.ts.
 */

/** One FTTH candidate at one term: each gathering is one POQ and one Quote. */
const oneCandidate = requestRow({
  technologyTypes: ['FTTH'],
  bandwidths: [{ download: 100_000, upload: 100_000 }],
  contractTerms: [36],
});

let validator: SonataValidator;
beforeAll(async () => {
  validator = await sonataValidator();
});

/** A `fetch` that notes every URL it is asked for (the real one does the work). */
function observedFetch(): { fetch: typeof fetch; urls: string[] } {
  const urls: string[] = [];
  return {
    urls,
    fetch: (input, init) => {
      urls.push(String(input instanceof Request ? input.url : input));
      return fetch(input, init);
    },
  };
}

describe('mef-sonata source resilience against the simulator', () => {
  let seller: SonataSeller;
  /** Answers a test forces against the documents on purpose (malformed bodies, an undocumented 404). */
  let broken: (status: number, body: unknown) => boolean;
  beforeEach(async () => {
    seller = await startSonataSeller({ behaviour: { stepMs: 10 } });
    broken = (status, body) => status < 300 && typeof body === 'string';
  });
  afterEach(async () => {
    await seller.settled();
    expect(sonataProblems(validator, seller, broken)).toEqual([]);
    await seller.stop();
  });

  const adapterFor = (settings: SonataSourceSettings, fetchImpl?: typeof fetch) =>
    createMefSonataSource({
      now: () => new Date(),
      settingsOf: () => settings,
      policy: fastPolicy,
      ...(fetchImpl ? { fetch: fetchImpl } : {}),
    });
  const statuses = () => seller.exchanges.map((exchange) => exchange.status);

  it('when three queries run one after another, then one token serves them all', async () => {
    const observed = observedFetch();
    const adapter = adapterFor(sellerSettings(seller, 'kpn-wba', 'instant', 'instant'), observed.fetch);
    const source = sourceRow();

    for (let n = 0; n < 3; n += 1) await adapter.fetchOffers(queryOf(source, oneCandidate));

    expect(observed.urls.filter((url) => url === seller.tokenUrl('kpn-wba'))).toHaveLength(1);
    expect(statuses()).toEqual([201, 201, 201, 201, 201, 201]);
  });

  it('when three queries start at once, then they share one token request', async () => {
    const observed = observedFetch();
    const adapter = adapterFor(sellerSettings(seller, 'kpn-wba', 'instant', 'instant'), observed.fetch);
    const source = sourceRow();

    await Promise.all([1, 2, 3].map(() => adapter.fetchOffers(queryOf(source, oneCandidate))));

    expect(observed.urls.filter((url) => url === seller.tokenUrl('kpn-wba'))).toHaveLength(1);
  });

  it('when the seller restarts and no longer knows the cached token, then its 401 fetches a fresh token once and the call succeeds', async () => {
    const observed = observedFetch();
    const settings = sellerSettings(seller, 'kpn-wba', 'instant', 'instant');
    const adapter = adapterFor(settings, observed.fetch);
    const source = sourceRow();
    await adapter.fetchOffers(queryOf(source, oneCandidate));
    const { port } = seller;
    await seller.stop();
    seller = await startSonataSeller({ port, behaviour: { stepMs: 10 } });

    const offers = await adapter.fetchOffers(queryOf(source, oneCandidate));

    expect(offers).toHaveLength(1);
    expect(statuses()).toEqual([401, 201, 201]);
    expect(observed.urls.filter((url) => url === settings.oauth2.tokenUrl)).toHaveLength(2);
  });

  it('when a token expires, then a new one is fetched before it is used again', async () => {
    const observed = observedFetch();
    let clock = Date.now();
    const settings = { ...sellerSettings(seller, 'kpn-wba', 'instant', 'instant') };
    settings.oauth2 = { ...settings.oauth2, tokenUrl: `${seller.tokenUrl('kpn-wba')}?expires_in=60` };
    const adapter = createMefSonataSource({
      now: () => new Date(clock),
      settingsOf: () => settings,
      policy: fastPolicy,
      fetch: observed.fetch,
    });
    const source = sourceRow();
    await adapter.fetchOffers(queryOf(source, oneCandidate));
    clock += 55_000;

    await adapter.fetchOffers(queryOf(source, oneCandidate));

    // 60 s tokens are renewed 6 s early: after 55 s the cache fetches a new one, and no call was refused.
    expect(observed.urls.filter((url) => url === settings.oauth2.tokenUrl)).toHaveLength(2);
    expect(statuses()).toEqual([201, 201, 201, 201]);
  });

  it('when the token endpoint refuses the secret, then SONATA_TOKEN_REFUSED, the seller’s API is never called, and the secret is nowhere', async () => {
    const settings = sellerSettings(seller, 'kpn-wba', 'instant', 'instant');
    settings.oauth2 = { ...settings.oauth2, clientSecret: 'wrong-secret-9f8e7d' };
    const adapter = adapterFor(settings);

    const result = adapter.fetchOffers(queryOf(sourceRow(), oneCandidate));

    await expect(result).rejects.toEqual(
      failure(
        'SONATA_TOKEN_REFUSED',
        'The token endpoint refused the client credentials (401 invalid_client).',
      ),
    );
    await expect(result).rejects.not.toHaveProperty('message', expect.stringContaining('wrong-secret'));
    expect(seller.exchanges).toEqual([]);
  });

  it('when the seller answers 503 once, then the call is retried and succeeds', async () => {
    const adapter = adapterFor(
      sellerSettings(seller, 'kpn-wba', 'instant', 'instant', { query: { script: '503,200' } }),
    );

    const offers = await adapter.fetchOffers(queryOf(sourceRow(), oneCandidate));

    expect(offers).toHaveLength(1);
    // The script counts per URL: the POQ create and the Quote create each get their 503 first.
    expect(statuses()).toEqual([503, 201, 503, 201]);
  });

  it('when a 503 carries Retry-After: 1, then the retry waits for it instead of the short backoff', async () => {
    const adapter = adapterFor(
      sellerSettings(seller, 'kpn-wba', 'instant', 'instant', {
        query: { script: '503,200', retry_after: '1' },
      }),
    );
    const started = performance.now();

    await adapter.fetchOffers(queryOf(sourceRow(), oneCandidate));

    // A behaviour check, not a timing one: with baseDelayMs 5 only the header can explain two 1 s gaps.
    expect(performance.now() - started).toBeGreaterThanOrEqual(1_800);
    expect(statuses()).toEqual([503, 201, 503, 201]);
  });

  it('when the seller keeps answering 500, then three calls are made and the failure is UPSTREAM_5XX with the MEF code', async () => {
    const adapter = adapterFor(
      sellerSettings(seller, 'kpn-wba', 'instant', 'instant', { query: { mode: '500' } }),
    );

    const result = adapter.fetchOffers(queryOf(sourceRow(), oneCandidate));

    await expect(result).rejects.toEqual(
      failure(
        'UPSTREAM_5XX',
        'The seller answered 500 to the POQ create: internalError (The seller failed to process the request.).',
      ),
    );
    expect(statuses()).toEqual([500, 500, 500]);
  });

  // The seller's error model (MEF Error4xx) onto stable codes; none of them is retried.
  it.each([
    [
      '401',
      'SONATA_UNAUTHORIZED',
      'The seller answered 401 to the POQ create: invalidCredentials (Forced by the mode knob.).',
      [401, 401],
    ],
    [
      '404',
      'SONATA_NOT_FOUND',
      'The seller answered 404 to the POQ create: notFound (Forced by the mode knob.).',
      [404],
    ],
    [
      '422',
      'SONATA_UNPROCESSABLE',
      'The seller answered 422 to the POQ create: otherIssue (Forced by the mode knob.).',
      [422],
    ],
    [
      '429',
      'SONATA_THROTTLED',
      'The seller answered 429 to the POQ create: tooManyRequests (Forced by the mode knob.).',
      [429],
    ],
    ['malformed', 'MALFORMED_RESPONSE', 'The seller answered with malformed JSON.', [201]],
  ])(
    'when the seller answers %s, then %s, and only a 401 is asked again (with a fresh token)',
    async (mode, code, message, calls) => {
      // POQ create documents no 404: the knob forces one anyway, as a gateway in front of a seller may.
      if (mode === '404') broken = (status) => status === 404;
      const adapter = adapterFor(
        sellerSettings(seller, 'kpn-wba', 'instant', 'instant', { query: { mode } }),
      );

      const result = adapter.fetchOffers(queryOf(sourceRow(), oneCandidate));

      await expect(result).rejects.toEqual(failure(code, message));
      expect(statuses()).toEqual(calls);
    },
  );

  it('when five calls in a row fail, then the source’s breaker opens and the sixth query calls nothing', async () => {
    const adapter = adapterFor(
      sellerSettings(seller, 'kpn-wba', 'instant', 'instant', { query: { mode: '422' } }),
    );
    const source = sourceRow();
    for (let n = 0; n < 5; n += 1) {
      await expect(adapter.fetchOffers(queryOf(source, oneCandidate))).rejects.toMatchObject({
        code: 'SONATA_UNPROCESSABLE',
      });
    }

    const result = adapter.fetchOffers(queryOf(source, oneCandidate));

    await expect(result).rejects.toEqual(
      failure('CIRCUIT_OPEN', 'The source failed repeatedly; calls to it are paused.'),
    );
    expect(statuses()).toEqual([422, 422, 422, 422, 422]);
  });

  it('when six queries run at once at a source of concurrency 2, then the seller never has more than two of its calls at once', async () => {
    let inFlight = 0;
    let most = 0;
    const counting: typeof sendToSupplier = async (url, init) => {
      most = Math.max(most, ++inFlight);
      try {
        return await sendToSupplier(url, init);
      } finally {
        inFlight -= 1;
      }
    };
    const adapter = createMefSonataSource({
      now: () => new Date(),
      settingsOf: () => sellerSettings(seller, 'kpn-wba', 'instant', 'instant', { query: { latency: '30' } }),
      policy: fastPolicy,
      send: counting,
    });
    const source = sourceRow({ concurrency: 2 });

    const results = await Promise.all(
      Array.from({ length: 6 }, () => adapter.fetchOffers(queryOf(source, oneCandidate))),
    );

    expect(results.map((offers) => offers.length)).toEqual([1, 1, 1, 1, 1, 1]);
    expect(most).toBe(2);
  });

  it('when the seller hangs, then the query ends at the source’s timeoutMs with TIMEOUT', async () => {
    const adapter = adapterFor(
      sellerSettings(seller, 'kpn-wba', 'instant', 'instant', { query: { mode: 'hang' } }),
    );

    const result = adapter.fetchOffers(queryOf(sourceRow({ timeoutMs: 300 }), oneCandidate));

    await expect(result).rejects.toEqual(failure('TIMEOUT', 'The source did not answer in time.'));
    expect(seller.exchanges).toEqual([]);
  });

  it('when a deferred seller never finishes within timeoutMs, then polling stops with TIMEOUT', async () => {
    await seller.stop();
    seller = await startSonataSeller({ behaviour: { stepMs: 60_000 } });
    const adapter = adapterFor(sellerSettings(seller, 'kpn-wba', 'deferred', 'deferred'));

    const result = adapter.fetchOffers(queryOf(sourceRow({ timeoutMs: 1500 }), oneCandidate));

    await expect(result).rejects.toEqual(failure('TIMEOUT', 'The source did not answer in time.'));
    expect(statuses().length).toBeGreaterThan(2);
    expect(statuses().every((status) => status === 201 || status === 200)).toBe(true);
  });

  it('when the worker aborts the query while the seller hangs, then it rejects with the abort’s reason at once', async () => {
    const adapter = adapterFor(
      sellerSettings(seller, 'kpn-wba', 'instant', 'instant', { query: { mode: 'hang' } }),
    );
    const controller = new AbortController();
    const reason = new Error('gathering worker stopped');

    const result = adapter.fetchOffers(queryOf(sourceRow(), oneCandidate, undefined, controller.signal));
    setTimeout(() => controller.abort(reason), 50);

    await expect(result).rejects.toBe(reason);
  });
});
