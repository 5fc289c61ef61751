import type { AppParts } from './app-wiring.js';
import { type DependencyHealth, dependencyHealth } from './dependency-health.js';
import type { DrainState } from './draining.js';

/**
 * What `/readyz` reports (issue 48): `not_ready` only while the instance starts (its worker not yet
 * running, where it runs one: `GATHERING_WORKER=off` makes an API-only instance, whose `worker` is `false`
 * and ready) or drains. An outage of the store or Redis does not make it `not_ready`: every instance
 * shares them, and taking all of them out of the balancer would turn the gateway's own 503 answers into
 * the balancer's errors. `database` and `redis` say what is down.
 */
export interface Readiness extends DependencyHealth {
  status: 'ready' | 'not_ready';
  /** The gathering worker is started and not stopped. */
  worker: boolean;
}

/**
 * The readiness of an instance, as `/readyz` answers it.
 *
 * @returns a function that resolves to the {@link Readiness} of that moment: `not_ready` once `drain` is
 *   draining, or while the worker of an instance that runs one is not running.
 */
export function createReadiness(
  parts: Pick<AppParts, 'services' | 'worker' | 'runsWorker'>,
  drain: Readonly<DrainState>,
): () => Promise<Readiness> {
  const { services, worker, runsWorker } = parts;
  return async () => {
    const health = await dependencyHealth(services);
    const ok = (worker.running || !runsWorker) && !drain.draining;
    return { status: ok ? 'ready' : 'not_ready', ...health, worker: worker.running };
  };
}
