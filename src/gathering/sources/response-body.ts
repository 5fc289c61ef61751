import { SourceError } from './types.js';

/** Largest supplier answer read (2 MiB); a longer one is that source's failure. */
export const MAX_SUPPLIER_RESPONSE_BYTES = 2 * 1024 * 1024;

/**
 * A response body as UTF-8 text, read up to {@link MAX_SUPPLIER_RESPONSE_BYTES}: the chunks of `body` (none
 * for `null`), after a check of the declared `Content-Length`. `cancel` drops the rest of the body when the
 * limit is passed.
 *
 * @throws {SourceError} `RESPONSE_TOO_LARGE` past the limit (declared or actual), before reading the rest;
 *   a broken or aborted stream rejects with the stream's own error.
 */
export async function readLimitedBody(
  body: AsyncIterable<Uint8Array> | null,
  declaredLength: string | null,
  cancel: () => void,
): Promise<string> {
  const tooLarge = () => {
    cancel();
    return new SourceError(
      'RESPONSE_TOO_LARGE',
      `The answer exceeds ${MAX_SUPPLIER_RESPONSE_BYTES} bytes.`,
      false,
    );
  };
  if (Number(declaredLength ?? 0) > MAX_SUPPLIER_RESPONSE_BYTES) throw tooLarge();
  if (!body) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.byteLength;
    if (size > MAX_SUPPLIER_RESPONSE_BYTES) throw tooLarge();
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * A fetch `Response`'s body as text (the OAuth2 token endpoints of `mef-sonata` sources), read up to
 * {@link MAX_SUPPLIER_RESPONSE_BYTES} (see {@link readLimitedBody}).
 *
 * @throws {SourceError} `RESPONSE_TOO_LARGE` past the limit; a broken or aborted stream rejects with the
 *   stream's own error.
 */
export function readLimitedText(response: Response): Promise<string> {
  return readLimitedBody(
    response.body as unknown as AsyncIterable<Uint8Array> | null,
    response.headers.get('content-length'),
    () => void response.body?.cancel().catch(() => {}),
  );
}
