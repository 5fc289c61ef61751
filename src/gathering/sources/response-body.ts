import { SourceError } from './types.js';

/** Largest supplier answer read (2 MiB); a longer one is that source's failure. */
export const MAX_SUPPLIER_RESPONSE_BYTES = 2 * 1024 * 1024;

/**
 * A supplier's response body as text (`http` and `mef-sonata` sources, token endpoints), read up to
 * {@link MAX_SUPPLIER_RESPONSE_BYTES}.
 *
 * @throws {SourceError} `RESPONSE_TOO_LARGE` past the limit (declared or actual), before reading the rest;
 *   a broken or aborted stream rejects with the stream's own error.
 */
export async function readLimitedText(response: Response): Promise<string> {
  const tooLarge = () => {
    void response.body?.cancel().catch(() => {});
    return new SourceError(
      'RESPONSE_TOO_LARGE',
      `The answer exceeds ${MAX_SUPPLIER_RESPONSE_BYTES} bytes.`,
      false,
    );
  };
  if (Number(response.headers.get('content-length') ?? 0) > MAX_SUPPLIER_RESPONSE_BYTES) throw tooLarge();
  if (!response.body) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    size += chunk.byteLength;
    if (size > MAX_SUPPLIER_RESPONSE_BYTES) throw tooLarge();
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}
