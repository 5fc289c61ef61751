import type { IncomingMessage, ServerResponse } from 'node:http';
import { AppError } from '../errors.js';

/** Largest JSON body the REST layer reads (1 MiB). */
export const MAX_BODY_BYTES = 1024 * 1024;

/**
 * Reads and parses a JSON request body.
 * @throws {AppError} `UNSUPPORTED_MEDIA_TYPE` unless the body is `application/json` (or `+json`);
 *   `PAYLOAD_TOO_LARGE` past {@link MAX_BODY_BYTES} (checked on Content-Length first, then while reading);
 *   `MALFORMED` for invalid JSON.
 */
export async function readJsonBody(req: IncomingMessage): Promise<unknown> {
  const type = (req.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  if (type !== 'application/json' && !type.endsWith('+json')) {
    throw new AppError('UNSUPPORTED_MEDIA_TYPE', 'Send the body as application/json.');
  }
  // Made only when thrown: an error captures a stack trace, which every body would pay for.
  const tooLarge = () => new AppError('PAYLOAD_TOO_LARGE', `The body exceeds ${MAX_BODY_BYTES} bytes.`);
  if (Number(req.headers['content-length'] ?? 0) > MAX_BODY_BYTES) throw tooLarge();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw tooLarge();
    chunks.push(chunk as Buffer);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    throw new AppError('MALFORMED', 'The body is not valid JSON.');
  }
}

/** Sends a JSON document with the given status. */
export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  contentType = 'application/json; charset=utf-8',
): void {
  const payload = JSON.stringify(body);
  res.writeHead(status, { 'content-type': contentType, 'content-length': Buffer.byteLength(payload) });
  res.end(payload);
}
