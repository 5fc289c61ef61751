/**
 * Whether this process traces (issue 37): set once by `startTracing` before the service's modules load,
 * read by the helpers of `./trace-context.ts`, which do nothing at all while it is false — tracing that is
 * not configured costs a boolean test per task, not a no-op span.
 */
let on = false;

/** Whether `startTracing` started the OpenTelemetry SDK in this process. */
export function tracingOn(): boolean {
  return on;
}

/** Marks tracing as started (by `startTracing` only). */
export function markTracingOn(): void {
  on = true;
}
