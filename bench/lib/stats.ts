import * as hdr from 'hdr-histogram-js';

/**
 * A latency recorder in microseconds (HdrHistogram, 3 significant digits), reporting milliseconds.
 * Used for publish→receive latencies, which autocannon does not measure.
 */
export class LatencyRecorder {
  private readonly histogram = hdr.build({
    lowestDiscernibleValue: 1,
    highestTrackableValue: 120_000_000,
    numberOfSignificantValueDigits: 3,
  });

  /** Records one latency, in milliseconds (fractions allowed). */
  record(milliseconds: number): void {
    this.histogram.recordValue(Math.max(1, Math.round(milliseconds * 1000)));
  }

  get count(): number {
    return this.histogram.totalCount;
  }

  /** The `percentile` (0–100) in milliseconds; null when nothing was recorded. */
  percentileMs(percentile: number): number | null {
    if (this.histogram.totalCount === 0) return null;
    return this.histogram.getValueAtPercentile(percentile) / 1000;
  }
}

/** The median of `values` (mean of the middle two for an even count); null for none. */
export function median(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}
