import type { Clock } from '../../src/clock.js';

/**
 * A clock that follows the wall clock plus an offset the test moves forward — or, while frozen, stands
 * still where it was frozen (moved only by {@link advance}), for tests that check a boundary to the
 * millisecond: on the wall clock, milliseconds pass between reading the time and the server reading it.
 */
export class ShiftedClock implements Clock {
  private offsetMs = 0;
  private frozenAt: number | null = null;

  now(): Date {
    return new Date((this.frozenAt ?? Date.now()) + this.offsetMs);
  }

  advance(ms: number): void {
    this.offsetMs += ms;
  }

  /** Stops the clock where it is; {@link advance} still moves it. */
  freeze(): void {
    this.frozenAt ??= Date.now();
  }

  /** Lets it follow the wall clock again from where it stands (it never goes back). */
  thaw(): void {
    if (this.frozenAt === null) return;
    this.offsetMs += this.frozenAt - Date.now();
    this.frozenAt = null;
  }
}
