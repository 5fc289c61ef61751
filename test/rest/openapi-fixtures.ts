/* What the tests of the OpenAPI document share (openapi, openapi-serve, openapi-contract-flow). */

/** The content type of every REST error (RFC 9457). */
export const PROBLEM = 'application/problem+json; charset=utf-8';
