import { SourceError } from './sources/types.js';

/** Delay before retry number `attempt` (1-based): exponential from 500 ms, capped at 30 s, with full jitter. */
export function retryDelayMs(attempt: number, random: () => number = Math.random): number {
  return Math.round(random() * Math.min(30_000, 500 * 2 ** (attempt - 1)));
}

/**
 * The failure an attempt is recorded with: a {@link SourceError} as the source threw it; anything else as
 * the source's time running out (`TIMEOUT`, when the attempt's signal aborted) or its unexpected failure
 * (`SOURCE_ERROR`), both retryable and without internals. A store outage never gets here: the worker pauses
 * for it instead (issue 48).
 */
export function attemptFailure(error: unknown, timedOut: boolean): SourceError {
  if (error instanceof SourceError) return error;
  return timedOut
    ? new SourceError('TIMEOUT', 'The source did not answer in time.', true)
    : new SourceError('SOURCE_ERROR', 'The source failed unexpectedly.', true);
}
