import { expect } from 'vitest';
import type { Json, TestServer, TestTenant } from '../helpers/app.js';

/*
 * What the tests of the Mercure hub on one instance share (mercure, mercure-refusals, mercure-expiry): the
 * tenant's topic and token, the hub's URL, a stream reader and the 401 answer.
 */

/** One Mercure event as a subscriber sees it: its id and its parsed `data`. */
export interface MercureEvent {
  id: string;
  data: Json;
}

export const topicOf = (tenant: TestTenant) => `${tenant.instanceId}/availability_request`;
/** The tenant's order topic (issue 35): granted next to {@link topicOf} to callers that may read orders. */
export const orderTopicOf = (tenant: TestTenant) => `${tenant.instanceId}/order`;

export function hubUrl(server: TestServer, query: Record<string, string>): string {
  return `${server.app.url}/.well-known/mercure?${new URLSearchParams(query)}`;
}

export async function sseJwtOf(tenant: TestTenant): Promise<string> {
  const list = await tenant.api.get('/availability-requests');
  expect(list.status).toBe(200);
  return list.body.sse_jwt;
}

/**
 * Opens an event stream with fetch and parses it as it arrives: events (`id:` and `data:` lines) and
 * comments (`: text`). `ended` tells how the body ended: `done`, or the read error's message.
 */
export async function openStream(url: string, headers: Record<string, string> = {}) {
  const controller = new AbortController();
  const response = await fetch(url, { headers, signal: controller.signal });
  const events: MercureEvent[] = [];
  const comments: string[] = [];
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  const ended = (async () => {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return 'done';
      buffer += decoder.decode(value, { stream: true });
      let end = buffer.indexOf('\n\n');
      while (end >= 0) {
        const lines = buffer.slice(0, end).split('\n');
        buffer = buffer.slice(end + 2);
        for (const line of lines.filter((l) => l.startsWith(':'))) comments.push(line.slice(1).trim());
        const field = (name: string) =>
          lines.filter((line) => line.startsWith(`${name}: `)).map((line) => line.slice(name.length + 2));
        const data = field('data');
        if (data.length > 0) events.push({ id: field('id')[0] ?? '', data: JSON.parse(data.join('\n')) });
        end = buffer.indexOf('\n\n');
      }
    }
  })().catch((error: Error) => error.message);
  return { response, events, comments, ended, close: () => controller.abort() };
}

/** A 401 problem+json (RFC 9457) with the given detail: the answer that sends no event. */
export function expectUnauthorised(response: Response, body: Json, detail: string): void {
  expect(response.status).toBe(401);
  expect(response.headers.get('content-type')).toBe('application/problem+json; charset=utf-8');
  expect(body).toEqual({
    type: 'urn:connectivity-gateway:problem:unauthenticated',
    title: 'Authentication required',
    status: 401,
    detail,
  });
}
