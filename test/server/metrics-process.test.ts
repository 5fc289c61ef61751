import { describe, expect, it } from 'vitest';
import { AppMetrics } from '../../src/server/metrics.js';

// Its own file: the process metrics are made once per module instance, so here the app below is the first.

/** The value of an unlabelled sample in an exposition text; null when absent. */
function sample(text: string, name: string): number | null {
  const line = text.split('\n').find((l) => l.startsWith(`${name} `));
  return line === undefined ? null : Number(line.slice(name.length + 1));
}

/** Keeps the CPU busy until the process has used `ms` more milliseconds of user CPU time. */
function burnUserCpu(ms: number): void {
  const until = process.cpuUsage().user + ms * 1000;
  let sink = 0;
  while (process.cpuUsage().user < until) for (let i = 0; i < 10_000; i++) sink += Math.sqrt(i);
  expect(sink).toBeGreaterThan(0);
}

describe('process metrics', () => {
  it('when the app used CPU before its first scrape, then process_cpu_user_seconds_total counts it', async () => {
    const metrics = new AppMetrics({
      openSubscriptions: () => 0,
      eventStreamConnections: () => 0,
      rateLimitStoreFailures: () => 0,
      storeUp: async () => true,
      redisUp: () => null,
    });
    burnUserCpu(200);

    const { body } = await metrics.render();

    expect(sample(body, 'process_cpu_user_seconds_total')).toBeGreaterThanOrEqual(0.2);
  });
});
