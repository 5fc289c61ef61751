import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_BODY_BYTES } from '../../src/rest/http.js';
import { startTestServer, type TestServer } from '../helpers/app.js';

/*
 * The body size of a GraphQL request against a running server (src/server/graphql-body-limit.ts, whose
 * refusals graphql-body-limit.test.ts checks one by one).
 */

describe('GraphQL request body size', () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer({ startWorker: false });
  });
  afterAll(() => server.close());

  /** A `{ __typename }` request padded with an unused variable to exactly `bytes` bytes of JSON. */
  const paddedBody = (bytes: number) => {
    const empty = JSON.stringify({ query: '{ __typename }', variables: { pad: '' } });
    return JSON.stringify({ query: '{ __typename }', variables: { pad: 'x'.repeat(bytes - empty.length) } });
  };
  const post = (body: string) =>
    fetch(`${server.app.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    });

  it('when the body is exactly 1 MiB, then it runs; one byte more, then 413 before Yoga reads it', async () => {
    const atLimit = await post(paddedBody(MAX_BODY_BYTES));
    const over = await post(paddedBody(MAX_BODY_BYTES + 1));

    expect(atLimit.status).toBe(200);
    expect(await atLimit.json()).toEqual({ data: { __typename: 'Query' } });
    expect(over.status).toBe(413);
    expect(over.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(await over.json()).toEqual({
      errors: [{ message: 'The body exceeds 1048576 bytes.', extensions: { code: 'BAD_REQUEST' } }],
    });
  });

  it('when the body is chunked without a Content-Length, then 411', async () => {
    const { status, body } = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const request = httpRequest(`${server.app.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
      });
      request.on('response', (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          text += chunk;
        });
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body: text }));
      });
      request.on('error', reject);
      request.write('{"query":');
      request.end('"{ __typename }"}');
    });

    expect(status).toBe(411);
    expect(JSON.parse(body)).toEqual({
      errors: [
        {
          message: 'Send the GraphQL request with a Content-Length header.',
          extensions: { code: 'BAD_REQUEST' },
        },
      ],
    });
  });
});
