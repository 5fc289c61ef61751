/**
 * Calls `read` every 20 ms until `done` holds for its result; rejects after `timeoutMs` with the last value.
 * Imports nothing, so tests that keep the service's modules out of their process (the scale-out files) can
 * use it too.
 */
export async function waitFor<T>(
  read: () => T | Promise<T>,
  done: (value: T) => boolean,
  timeoutMs = 15_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline)
      throw new Error(`condition not met within ${timeoutMs} ms; last value: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
