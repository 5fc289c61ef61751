import { existsSync, readFileSync } from 'node:fs';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openApiDocument } from '../../src/rest/openapi/document.js';
import { serveApiDocs } from '../../src/rest/openapi/serve.js';
import { routes } from '../../src/rest/routes.js';
import { PROBLEM } from './openapi-fixtures.js';

const SWAGGER_UI_DIR = fileURLToPath(new URL('../../node_modules/swagger-ui-dist', import.meta.url));
const CHROMIUM = '/usr/bin/chromium';

/** A bare server that serves the docs and answers everything else 404, as app.ts falls through. */
function docsServer(): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (serveApiDocs(req, res, url.pathname)) return;
    res.writeHead(404, { 'content-type': 'text/plain' });
    res.end('fallback');
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server }),
    ),
  );
}

/** A GET with a raw request target (fetch would normalise `..`). */
function rawGet(base: string, target: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${base}${target}`, { method: 'GET', path: target }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        body += chunk;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('serveApiDocs', () => {
  let base: string;
  let server: Server;

  beforeAll(async () => {
    ({ url: base, server } = await docsServer());
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('when /openapi.json is asked for, then it answers the document as JSON with an ETag', async () => {
    const response = await fetch(`${base}/openapi.json`);
    const etag = response.headers.get('etag') ?? '';

    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(await response.json()).toEqual(openApiDocument());
    expect((await fetch(`${base}/openapi.json`, { headers: { 'if-none-match': etag } })).status).toBe(304);
    const head = await fetch(`${base}/openapi.json`, { method: 'HEAD' });
    expect([head.status, await head.text()]).toEqual([200, '']);
  });

  it('when /docs is asked for, then the page loads only same-origin assets, without inline script, under a strict CSP', async () => {
    const page = await fetch(`${base}/docs`);
    const html = await page.text();
    const assets = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((match) => match[1] ?? '');

    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('content-security-policy')).toMatch(/^default-src 'self';.*script-src 'self';/);
    expect(page.headers.get('x-content-type-options')).toBe('nosniff');
    expect(html).not.toMatch(/<script>|<script [^>]*>[^<\s]|<style|style=/);
    expect(assets.sort()).toEqual([
      '/docs/favicon-16x16.png',
      '/docs/favicon-32x32.png',
      '/docs/index.css',
      '/docs/init.js',
      '/docs/swagger-ui-bundle.js',
      '/docs/swagger-ui.css',
    ]);
    for (const asset of assets) {
      const response = await fetch(`${base}${asset}`);
      expect(response.status, asset).toBe(200);
      const file = join(SWAGGER_UI_DIR, asset.slice('/docs/'.length));
      if (existsSync(file) && !asset.endsWith('init.js')) {
        expect(Buffer.from(await response.arrayBuffer()).equals(readFileSync(file)), asset).toBe(true);
      }
    }
    expect((await fetch(`${base}/docs/init.js`)).headers.get('content-type')).toBe(
      'application/javascript; charset=utf-8',
    );
    expect((await fetch(`${base}/docs/swagger-ui.css`)).headers.get('content-type')).toBe(
      'text/css; charset=utf-8',
    );
  });

  it('when a name outside the allow-list or another method is asked for, then 404 or 405 problem+json, and other paths fall through', async () => {
    for (const target of [
      '/docs/swagger-ui.js',
      '/docs/package.json',
      '/docs/..%2f..%2fpackage.json',
      '/docs/x/../../etc/passwd',
    ]) {
      const response = await rawGet(base, target);
      expect(response.status, target).toBe(404);
      expect(response.body, target).not.toMatch(/"name":\s*"connectivity-gateway"|root:/);
    }
    const post = await fetch(`${base}/openapi.json`, { method: 'POST' });
    expect([post.status, post.headers.get('allow'), post.headers.get('content-type')]).toEqual([
      405,
      'GET, HEAD',
      PROBLEM,
    ]);
    expect((await post.json()).status).toBe(405);
    expect(await (await fetch(`${base}/customers`)).text()).toBe('fallback');
  });

  it.skipIf(!existsSync(CHROMIUM))(
    'when /docs is opened in a browser, then Swagger UI renders every operation with no CSP violation or foreign request',
    async () => {
      const browser = await chromium.launch({
        executablePath: CHROMIUM,
        args: ['--no-sandbox', '--disable-gpu'],
      });
      try {
        const page = await browser.newPage();
        const problems: string[] = [];
        const requested: string[] = [];
        page.on('pageerror', (error) => problems.push(String(error)));
        page.on('console', (message) => {
          if (message.type() === 'error' || /content security policy/i.test(message.text()))
            problems.push(message.text());
        });
        page.on('request', (request) => requested.push(request.url()));

        await page.goto(`${base}/docs`);
        await page
          .locator('.opblock')
          .nth(routes.length - 1)
          .waitFor({ timeout: 20_000 });

        expect(await page.locator('.opblock').count()).toBe(routes.length);
        expect(await page.locator('.info .title').textContent()).toContain('Connectivity Gateway REST API');
        expect(problems).toEqual([]);
        expect(requested.filter((url) => !url.startsWith(`${base}/`))).toEqual([]);
      } finally {
        await browser.close();
      }
    },
    60_000,
  );
});
