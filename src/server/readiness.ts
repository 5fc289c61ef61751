import type { AppParts } from './app-wiring.js';
import type { DrainState } from './draining.js';

/**
 * What `/readyz` reports: ready only while the database answers and the worker runs (where this instance
 * runs one: `GATHERING_WORKER=off` makes an API-only instance, whose `worker` is `false` and ready).
 */
export interface Readiness {
  status: 'ready' | 'not_ready';
  /** A `select 1` succeeded. */
  database: boolean;
  /** The gathering worker is started and not stopped. */
  worker: boolean;
}

/**
 * The readiness of an instance, as `/readyz` answers it.
 *
 * @returns a function that pings the database and resolves to the {@link Readiness} of that moment:
 *   `not_ready` once `drain` is draining, whatever the database and worker say.
 */
export function createReadiness(
  parts: Pick<AppParts, 'services' | 'worker' | 'runsWorker'>,
  drain: Readonly<DrainState>,
): () => Promise<Readiness> {
  const { services, worker, runsWorker } = parts;
  return async () => {
    const database = await services.db.ping();
    const ok = database && (worker.running || !runsWorker) && !drain.draining;
    return { status: ok ? 'ready' : 'not_ready', database, worker: worker.running };
  };
}
