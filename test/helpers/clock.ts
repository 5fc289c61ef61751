import type { Clock } from '../../src/clock.js';

/** A clock that follows the wall clock plus an offset the test moves forward. */
export class ShiftedClock implements Clock {
  private offsetMs = 0;

  now(): Date {
    return new Date(Date.now() + this.offsetMs);
  }

  advance(ms: number): void {
    this.offsetMs += ms;
  }
}
