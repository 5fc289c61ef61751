import { randomBytes } from 'node:crypto';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Json, startTestServer, type TestServer, type TestTenant } from '../helpers/app.js';
import { expectUnauthorised, hubUrl, sseJwtOf, topicOf } from './mercure-fixtures.js';

/*
 * What the hub refuses before it opens a stream: no or a bad token (401), a token that grants none of the
 * topics (403), no topic (422), a POST (405).
 */

/** A 403 problem+json: a valid token that grants none of the topics the selectors match (Mercure spec, "Authorization"). */
function expectForbidden(response: Response, body: Json): void {
  expect(response.status).toBe(403);
  expect(response.headers.get('content-type')).toBe('application/problem+json; charset=utf-8');
  expect(body).toEqual({
    type: 'urn:connectivity-gateway:problem:forbidden',
    title: 'Forbidden',
    status: 403,
    detail: 'The token grants none of the topics the selectors match.',
  });
}

describe('Mercure event stream', () => {
  let server: TestServer;
  let tenantA: TestTenant;
  let tenantB: TestTenant;

  beforeAll(async () => {
    server = await startTestServer({
      env: { SOURCE_LATENCY_SCALE: '0.05', MERCURE_KEEPALIVE_SECONDS: '0.1' },
    });
    tenantA = await server.tenant();
    tenantB = await server.tenant();
  });
  afterAll(() => server.close());

  describe('when the token is missing or invalid, then 401 problem+json; when it grants none of the topics, then 403; and no stream', () => {
    const attempt = async (query: Record<string, string>, headers: Record<string, string> = {}) => {
      const response = await fetch(hubUrl(server, query), { headers });
      const body = await response.json();
      expect(server.app.mercure.connectionCount).toBe(0);
      return { response, body };
    };
    const invalid = 'The event-stream token is invalid or expired.';
    const base64url = (text: string) => Buffer.from(text).toString('base64url');

    it('without a token', async () => {
      const { response, body } = await attempt({ topic: topicOf(tenantA) });
      expectUnauthorised(
        response,
        body,
        'Send the sse_jwt as a Bearer token, authorization parameter or cookie.',
      );
    });

    it('with another instance’s sse_jwt', async () => {
      const { response, body } = await attempt({
        topic: topicOf(tenantA),
        authorization: await sseJwtOf(tenantB),
      });
      expectForbidden(response, body);
    });

    it('with a token signed by another key', async () => {
      const forged = await new SignJWT({ mercure: { publish: [], subscribe: [topicOf(tenantA)] } })
        .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
        .setIssuedAt()
        .setExpirationTime('10m')
        .sign(randomBytes(32));
      const { response, body } = await attempt(
        { topic: topicOf(tenantA) },
        { authorization: `Bearer ${forged}` },
      );
      expectUnauthorised(response, body, invalid);
    });

    it('with alg: none and the real payload', async () => {
      const payload = (await sseJwtOf(tenantA)).split('.')[1];
      const unsigned = `${base64url('{"alg":"none"}')}.${payload}.`;
      const { response, body } = await attempt({ topic: topicOf(tenantA), authorization: unsigned });
      expectUnauthorised(response, body, invalid);
    });

    it('with a topic that is not an availability_request topic', async () => {
      const jwt = await sseJwtOf(tenantA);
      for (const topic of [`${tenantA.instanceId}/quotes`, `${topicOf(tenantA)}/x`, tenantA.instanceId]) {
        const { response, body } = await attempt({ topic, authorization: jwt });
        expectForbidden(response, body);
      }
    });
  });

  it('when no topic is given, then 422; when POSTed, then 405 with Allow: GET', async () => {
    const jwt = await sseJwtOf(tenantA);

    const noTopic = await fetch(hubUrl(server, { authorization: jwt }));
    const posted = await fetch(hubUrl(server, { topic: topicOf(tenantA), authorization: jwt }), {
      method: 'POST',
    });

    expect(noTopic.status).toBe(422);
    expect(await noTopic.json()).toEqual({
      type: 'urn:connectivity-gateway:problem:validation',
      title: 'Invalid input',
      status: 422,
      detail: 'Give 1 to 20 topic selectors, such as <instance_id>/availability_request.',
      errors: [{ path: '/topic', message: 'between 1 and 20 topic parameters are required' }],
    });
    expect(posted.status).toBe(405);
    expect(posted.headers.get('allow')).toBe('GET');
    expect(await posted.json()).toEqual({
      type: 'urn:connectivity-gateway:problem:method-not-allowed',
      title: 'Method not allowed',
      status: 405,
      detail: 'Subscribe with GET.',
    });
  });
});
