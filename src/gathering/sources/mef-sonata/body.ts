import { MAX_SUPPLIER_RESPONSE_BYTES } from '../http.js';
import { SourceError } from '../types.js';

/**
 * A response body as text, read up to {@link MAX_SUPPLIER_RESPONSE_BYTES} (2 MiB, as for the `http` source).
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
