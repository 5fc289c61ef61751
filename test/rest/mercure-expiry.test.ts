import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer, waitFor } from '../helpers/app.js';
import {
  expectUnauthorised,
  hubUrl,
  openStream,
  orderTopicOf,
  sseJwtOf,
  topicOf,
} from './mercure-fixtures.js';

describe('Mercure event stream: token expiry and shutdown', () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer({ env: { SOURCE_LATENCY_SCALE: '0.05' } });
  });
  afterAll(() => server.close());

  it('when the list is read again within a minute, then the same sse_jwt; a minute later, a newly issued one', async () => {
    const tenant = await server.tenant();
    // Frozen: on the wall clock the seconds of `iat` could tick between the reads.
    server.clock.freeze();
    let first: string;
    let again: string;
    let renewed: string;
    try {
      first = await sseJwtOf(tenant);
      server.clock.advance(59 * 1000);
      again = await sseJwtOf(tenant);
      server.clock.advance(1000);
      renewed = await sseJwtOf(tenant);
    } finally {
      // The later tests of this file read the wall clock again, even when a read above failed.
      server.clock.thaw();
    }

    expect(again).toBe(first);
    expect(renewed).not.toBe(first);
    const issued = decodeJwt(first);
    expect(decodeJwt(renewed)).toEqual({
      iat: (issued.iat as number) + 60,
      exp: (issued.iat as number) + 60 + 600,
      mercure: { publish: [], subscribe: [topicOf(tenant), orderTopicOf(tenant)] },
      // The session it was minted from (issue 34): the auth token's id and its application's.
      sid: issued.sid,
      app: issued.app,
    });
    expect([issued.sid, issued.app]).toEqual([
      expect.stringMatching(/^tok_/),
      expect.stringMatching(/^app_/),
    ]);
  });

  it('when the sse_jwt is older than 10 minutes, then 401 problem+json and no stream', async () => {
    const tenant = await server.tenant();
    const jwt = await sseJwtOf(tenant);
    server.clock.advance(11 * 60 * 1000);

    const response = await fetch(hubUrl(server, { topic: topicOf(tenant), authorization: jwt }));

    expectUnauthorised(response, await response.json(), 'The event-stream token is invalid or expired.');
    expect(server.app.mercure.connectionCount).toBe(0);
  });

  it('when app.stop() runs with open streams, then every reader sees the end', async () => {
    const tenant = await server.tenant();
    const url = hubUrl(server, { topic: topicOf(tenant), authorization: await sseJwtOf(tenant) });
    const streams = [await openStream(url), await openStream(url)];
    await waitFor(
      () => Promise.resolve(server.app.mercure.connectionCount),
      (count) => count === 2,
    );

    await server.app.stop();

    expect(await Promise.all(streams.map((stream) => stream.ended))).toEqual(['done', 'done']);
    expect(server.app.mercure.connectionCount).toBe(0);
  });
});
