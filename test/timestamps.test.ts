import { describe, expect, it } from 'vitest';
import { isoSeconds, isoString } from '../src/timestamps.js';

/** Instants around the edges: the epoch, before it, leap days, year 10000 and year -1, a day's last ms. */
const instants = [
  0,
  -1,
  -86_400_000,
  -62_198_755_200_001,
  Date.UTC(2024, 1, 29, 23, 59, 59, 999),
  Date.UTC(2026, 11, 8, 0, 0, 0, 0),
  Date.UTC(2026, 11, 8, 13, 7, 5, 42),
  Date.UTC(9999, 11, 31, 23, 59, 59, 999),
  Date.UTC(10_000, 0, 1, 0, 0, 0, 1),
  8.64e15,
  -8.64e15,
];

describe('isoString', () => {
  it('writes what toISOString writes, at the edges and over ten thousand instants a day apart and more', () => {
    for (const time of instants) expect(isoString(new Date(time))).toBe(new Date(time).toISOString());
    for (let n = 0, time = Date.UTC(1969, 0, 1); n < 10_000; n += 1, time += 86_400_000 + 3_601_001 * n)
      expect(isoString(new Date(time))).toBe(new Date(time).toISOString());
  });

  it('throws the RangeError of toISOString for an invalid date', () => {
    expect(() => isoString(new Date(Number.NaN))).toThrow(RangeError);
  });
});

describe('isoSeconds', () => {
  it('writes the second with +00:00, milliseconds dropped', () => {
    expect(isoSeconds(new Date(Date.UTC(2026, 10, 22, 10, 4, 50, 999)))).toBe('2026-11-22T10:04:50+00:00');
    expect(isoSeconds(new Date(-1))).toBe('1969-12-31T23:59:59+00:00');
    for (const time of instants)
      expect(isoSeconds(new Date(time))).toBe(`${new Date(time).toISOString().slice(0, -5)}+00:00`);
  });

  it('throws a RangeError for an invalid date', () => {
    expect(() => isoSeconds(new Date(Number.NaN))).toThrow(RangeError);
  });
});
