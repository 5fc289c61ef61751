import { type Dispatcher, request } from 'undici';
import { readLimitedBody } from './response-body.js';

/**
 * A supplier's answer to one {@link sendToSupplier} call. Its body must be read ({@link text}) or
 * dropped ({@link discard}), so that the connection can serve the next call.
 */
export interface SupplierResponse {
  /** The HTTP status code. */
  readonly status: number;
  /** A response header by its name (any case): its value, the first one when repeated; null when absent. */
  header(name: string): string | null;
  /**
   * The body as UTF-8 text, read up to `MAX_SUPPLIER_RESPONSE_BYTES` (`response-body.ts`).
   *
   * @throws {SourceError} `RESPONSE_TOO_LARGE` past the limit; a broken or aborted stream rejects with the
   *   stream's own error.
   */
  text(): Promise<string>;
  /** Drops the body: a short rest is read past so the connection is kept, a long one closes it. */
  discard(): Promise<void>;
}

/**
 * Sends one HTTP request to a supplier with undici's `request` API — the client Node's own `fetch` is
 * built on, without the WHATWG `Request`/`Response`/stream objects around it: in a microbenchmark of a
 * supplier-sized JSON exchange, client and server together took about a third of the CPU per call that they
 * took with `fetch` (BENCHMARKS.md, "Supplier calls without fetch"). Redirects are not
 * followed (a 3xx is answered as it is); `signal` aborts the call and a body still being read.
 *
 * @throws Error (undici's) when the supplier cannot be reached, the connection breaks, or `signal` aborts
 *   the call before the head arrives.
 */
export async function sendToSupplier(
  url: string | URL,
  init: {
    method: Dispatcher.HttpMethod;
    headers: Record<string, string>;
    body?: string;
    signal: AbortSignal;
  },
): Promise<SupplierResponse> {
  const response = await request(url, {
    method: init.method,
    headers: init.headers,
    body: init.body ?? null,
    signal: init.signal,
  });
  const { body, headers } = response;
  const header = (name: string): string | null => {
    const value = headers[name.toLowerCase()];
    return (Array.isArray(value) ? value[0] : value) ?? null;
  };
  return {
    status: response.statusCode,
    header,
    text: () => readLimitedBody(body, header('content-length'), () => body.destroy()),
    discard: async () => {
      await body.dump().catch(() => {});
    },
  };
}
