/**
 * The source of "now" for every time-dependent rule (token expiry, timestamps, leases).
 * Injected so tests can move time forward instead of waiting.
 */
export interface Clock {
  now(): Date;
}

/** The wall clock. */
export const systemClock: Clock = { now: () => new Date() };
