import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type SupplierSimulator, startSupplierSimulator } from '../../../src/gathering/simulator/server.js';
import { createHttpSource } from '../../../src/gathering/sources/http.js';
import { SourceError } from '../../../src/gathering/sources/types.js';
import { waitFor } from '../../helpers/app.js';
import { failure, settings, storedRequestPerFile } from './http-fixtures.js';

/*
 * The http source's policies against the supplier simulator: retries (and Retry-After), timeouts, the
 * breaker and the per-source concurrency. What goes over the wire to a supplier of the test's own (the
 * request, prices, redirects, unreachable and stalled suppliers) is in http-own-supplier.test.ts.
 */

const { registerSource, queryFor, expectedOffers } = storedRequestPerFile();

describe('http source against the supplier simulator', () => {
  let sim: SupplierSimulator;
  const calls = (key = 'kpn-wba') => sim.stats.get(key)?.calls ?? 0;

  beforeEach(async () => {
    sim = await startSupplierSimulator();
  });
  afterEach(() => sim.stop());

  it('when the supplier answers 503, 503, 200, then it is called exactly three times and its offers come back', async () => {
    const source = await registerSource(sim.endpoint('kpn-wba', { script: '503,503,200' }));

    const offers = await createHttpSource({ settings }).fetchOffers(queryFor(source));

    expect(calls()).toBe(3);
    expect(expectedOffers('kpn-wba').length).toBeGreaterThan(0);
    expect(offers).toEqual(expectedOffers('kpn-wba'));
  });

  it('when the supplier hangs, then each call is cut off at timeoutMs and it fails with TIMEOUT after three calls', async () => {
    const timeoutMs = 300;
    const source = await registerSource(sim.endpoint('kpn-wba', { mode: 'hang' }), { timeoutMs });
    const started = performance.now();

    const result = createHttpSource({ settings }).fetchOffers(queryFor(source));

    await expect(result).rejects.toEqual(failure('TIMEOUT', 'The source did not answer in time.'));
    expect(performance.now() - started).toBeLessThan(3 * timeoutMs + 2 * settings.maxDelayMs + 5_000);
    expect(calls()).toBe(3);
    // Every abandoned call closed its connection: nothing is left hanging at the supplier.
    await waitFor(
      async () => sim.stats.get('kpn-wba')?.inFlight,
      (inFlight) => inFlight === 0,
    );
  });

  // Only timeouts and 5xx are retried: never a 4xx (not even a 429 with Retry-After) nor a broken answer.
  it.each([
    ['400', 'UPSTREAM_4XX', 'The source answered 400.'],
    ['429', 'UPSTREAM_4XX', 'The source answered 429.'],
    ['malformed', 'MALFORMED_RESPONSE', 'The source answered with malformed JSON.'],
    [
      'invalid',
      'INVALID_RESPONSE',
      /^The source’s answer breaks the supplier contract at \/offers\/0\/\w+: /,
    ],
    ['huge', 'RESPONSE_TOO_LARGE', 'The answer exceeds 2097152 bytes.'],
  ] as const)(
    'when the supplier answers %s, then it is called once and fails with %s',
    async (mode, code, message) => {
      const source = await registerSource(sim.endpoint('kpn-wba', { mode, retry_after: '1' }));

      const result = createHttpSource({ settings }).fetchOffers(queryFor(source));

      await expect(result).rejects.toBeInstanceOf(SourceError);
      await expect(result).rejects.toEqual(failure(code, message));
      expect(calls()).toBe(1);
    },
  );

  it('when a 503 carries Retry-After: 1, then the retry waits for it instead of the short backoff', async () => {
    const source = await registerSource(sim.endpoint('kpn-wba', { script: '503,200', retry_after: '1' }));
    const started = performance.now();

    const offers = await createHttpSource({ settings }).fetchOffers(queryFor(source));

    // A behaviour check, not a timing one: with baseDelayMs 5 only the header can explain a 1 s gap.
    expect(performance.now() - started).toBeGreaterThanOrEqual(900);
    expect(calls()).toBe(2);
    expect(offers).toEqual(expectedOffers('kpn-wba'));
  });

  it('when five calls in a row fail, then the breaker opens: no call until it half-opens, then one trial call', async () => {
    const source = await registerSource(sim.endpoint('kpn-wba', { mode: '400' }));
    const adapter = createHttpSource({ settings });
    for (let n = 1; n <= 5; n += 1) {
      await expect(adapter.fetchOffers(queryFor(source))).rejects.toEqual(
        failure('UPSTREAM_4XX', 'The source answered 400.'),
      );
    }
    expect(calls()).toBe(5);

    const whileOpen = adapter.fetchOffers(queryFor(source));

    await expect(whileOpen).rejects.toEqual(
      failure('CIRCUIT_OPEN', 'The source failed repeatedly; calls to it are paused.'),
    );
    expect(calls()).toBe(5);

    await new Promise((resolve) => setTimeout(resolve, settings.halfOpenAfterMs + 100));
    const trial = adapter.fetchOffers(queryFor(source));
    await expect(trial).rejects.toEqual(failure('UPSTREAM_4XX', 'The source answered 400.'));
    expect(calls()).toBe(6);
    // The trial failed, so the breaker is open again at once.
    await expect(adapter.fetchOffers(queryFor(source))).rejects.toEqual(
      failure('CIRCUIT_OPEN', 'The source failed repeatedly; calls to it are paused.'),
    );
    expect(calls()).toBe(6);
  });

  it('when the half-open trial call succeeds, then the breaker closes and calls flow again', async () => {
    const source = await registerSource(sim.endpoint('kpn-wba', { script: '400,400,400,400,400,200' }));
    const adapter = createHttpSource({ settings });
    for (let n = 1; n <= 5; n += 1) await expect(adapter.fetchOffers(queryFor(source))).rejects.toThrow();
    await expect(adapter.fetchOffers(queryFor(source))).rejects.toEqual(
      failure('CIRCUIT_OPEN', 'The source failed repeatedly; calls to it are paused.'),
    );

    await new Promise((resolve) => setTimeout(resolve, settings.halfOpenAfterMs + 100));
    const trial = await adapter.fetchOffers(queryFor(source));
    const next = await adapter.fetchOffers(queryFor(source));

    expect(trial).toEqual(expectedOffers('kpn-wba'));
    expect(next).toEqual(expectedOffers('kpn-wba'));
    expect(calls()).toBe(7);
  });

  it('when ten calls are made at once to a source of concurrency 2, then never more than two are in flight', async () => {
    const source = await registerSource(sim.endpoint('kpn-wba', { latency: '100' }), { concurrency: 2 });
    const adapter = createHttpSource({ settings });

    const results = await Promise.all(
      Array.from({ length: 10 }, () => adapter.fetchOffers(queryFor(source))),
    );

    expect(results).toEqual(Array.from({ length: 10 }, () => expectedOffers('kpn-wba')));
    expect(sim.stats.get('kpn-wba')).toEqual({ calls: 10, inFlight: 0, maxInFlight: 2 });
  });
});
