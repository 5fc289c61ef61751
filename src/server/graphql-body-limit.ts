import type { IncomingMessage, ServerResponse } from 'node:http';
import { AppError, errorCodes } from '../errors.js';
import { MAX_BODY_BYTES } from '../rest/http.js';

/** Only a single non-negative integer is a valid Content-Length (RFC 9110, section 8.6). */
const contentLengthPattern = /^\d+$/;

/**
 * The size limit of `/graphql` request bodies, checked on the headers before Yoga reads anything.
 *
 * It replaces Yoga's own `maxRequestBodySize`, which pipes every body through a counting
 * `TransformStream` and, measured in `npm run bench`, roughly halves GraphQL throughput. Checking
 * `Content-Length` is enough: Node's HTTP parser never hands over more body bytes than it announces.
 * A body without one (`Transfer-Encoding: chunked`) could be of any size, so it is refused with 411
 * (RFC 9110, section 15.5.12); every GraphQL client sends a buffered body with its length.
 *
 * @returns the refusal — `LENGTH_REQUIRED` (411), `MALFORMED` (400) or `PAYLOAD_TOO_LARGE` (413, past
 *   {@link MAX_BODY_BYTES}, the REST limit) — or null when the request may go on to Yoga.
 */
export function graphqlBodyRefusal(headers: IncomingMessage['headers']): AppError | null {
  const length = headers['content-length'];
  if (length === undefined) {
    return headers['transfer-encoding'] === undefined
      ? null
      : new AppError('LENGTH_REQUIRED', 'Send the GraphQL request with a Content-Length header.');
  }
  if (!contentLengthPattern.test(length)) {
    return new AppError('MALFORMED', 'The Content-Length header is invalid.');
  }
  if (Number(length) > MAX_BODY_BYTES) {
    return new AppError('PAYLOAD_TOO_LARGE', `The body exceeds ${MAX_BODY_BYTES} bytes.`);
  }
  return null;
}

/**
 * Answers a refused `/graphql` request as a GraphQL response — `{errors: [{message, extensions: {code}}]}`
 * under the refusal's HTTP status — and closes the connection, so its unread body is not parsed.
 */
export function sendGraphQLRefusal(res: ServerResponse, refusal: AppError): void {
  const { status } = errorCodes[refusal.code];
  const body = JSON.stringify({ errors: [{ message: refusal.message, extensions: refusal.extensions }] });
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
    connection: 'close',
  });
  res.end(body);
}
