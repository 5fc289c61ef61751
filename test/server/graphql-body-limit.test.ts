import { describe, expect, it } from 'vitest';
import { graphqlBodyRefusal } from '../../src/server/graphql-body-limit.js';

/** The refusal as code and message, or null. */
const refusalOf = (headers: Record<string, string>) => {
  const refusal = graphqlBodyRefusal(headers);
  return refusal && { code: refusal.code, message: refusal.message };
};

describe('graphqlBodyRefusal', () => {
  it('when there is no body, or a Content-Length up to 1 MiB, then the request may go on', () => {
    expect(refusalOf({})).toBeNull();
    expect(refusalOf({ 'content-length': '0' })).toBeNull();
    expect(refusalOf({ 'content-length': '1048576' })).toBeNull();
  });

  it('when the Content-Length is over 1 MiB, then PAYLOAD_TOO_LARGE', () => {
    expect(refusalOf({ 'content-length': '1048577' })).toEqual({
      code: 'PAYLOAD_TOO_LARGE',
      message: 'The body exceeds 1048576 bytes.',
    });
  });

  it('when the Content-Length is not one non-negative integer, then MALFORMED', () => {
    for (const length of ['1,2', '-1', '12 ', 'abc', '']) {
      expect(refusalOf({ 'content-length': length })).toEqual({
        code: 'MALFORMED',
        message: 'The Content-Length header is invalid.',
      });
    }
  });

  it('when the body is chunked without a Content-Length, then LENGTH_REQUIRED', () => {
    expect(refusalOf({ 'transfer-encoding': 'chunked' })).toEqual({
      code: 'LENGTH_REQUIRED',
      message: 'Send the GraphQL request with a Content-Length header.',
    });
  });
});
