import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { contractExampleBatch, startTestServer, type TestServer, type TestTenant } from '../helpers/app.js';

/** Debian's Chromium (`apt-get install chromium`), driven by playwright-core: no browser download. */
const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
const RESULTS_DIR = fileURLToPath(new URL('../../test-results', import.meta.url));
const STATIC_DIR = fileURLToPath(new URL('../../src/dashboard/static', import.meta.url));
/** Every file the dashboard is made of: the page, its ES modules and its stylesheets. */
const STATIC_FILES = readdirSync(STATIC_DIR).sort();
const STYLESHEETS = STATIC_FILES.filter((file) => file.endsWith('.css'));
const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'application/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
};
const CSP =
  "default-src 'self'; connect-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; frame-ancestors 'none'";
/** Generous: gathering runs on simulated supplier latency, and CI machines are slow. */
const SLOW = 60_000;

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({ env: { SOURCE_LATENCY_SCALE: '0.3' } });
});

afterAll(async () => {
  await server?.close();
});

/** A GET with the path sent byte for byte (fetch would normalise `..` away before sending). */
function rawGet(path: string): Promise<{ status: number; body: string }> {
  const url = new URL(server.app.url);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: url.hostname, port: url.port, path, method: 'GET' }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }),
      );
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

describe('serving /dashboard', () => {
  test('GET /dashboard answers the page with a strict CSP', async () => {
    for (const path of ['/dashboard', '/dashboard/']) {
      const response = await fetch(`${server.app.url}${path}`);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(response.headers.get('content-security-policy')).toBe(CSP);
      expect(response.headers.get('x-content-type-options')).toBe('nosniff');
      expect(response.headers.get('cache-control')).toBe('no-cache');
      const html = await response.text();
      expect(html).toContain('<script type="module" src="/dashboard/app.js"></script>');
      for (const stylesheet of STYLESHEETS) expect(html).toContain(`href="/dashboard/${stylesheet}"`);
    }
  });

  test('the modules and the stylesheets have their media types; HEAD and If-None-Match work', async () => {
    const script = await fetch(`${server.app.url}/dashboard/app.js`);
    expect(script.status).toBe(200);
    expect(script.headers.get('content-type')).toBe('application/javascript; charset=utf-8');
    expect(script.headers.get('content-security-policy')).toBe(CSP);
    expect(await script.text()).toBe(readFileSync(join(STATIC_DIR, 'app.js'), 'utf8'));

    const styles = await fetch(`${server.app.url}/dashboard/base.css`);
    expect(styles.status).toBe(200);
    expect(styles.headers.get('content-type')).toBe('text/css; charset=utf-8');
    expect(await styles.text()).toBe(readFileSync(join(STATIC_DIR, 'base.css'), 'utf8'));

    for (const file of STATIC_FILES.filter((name) => name !== 'index.html')) {
      const response = await fetch(`${server.app.url}/dashboard/${file}`);
      expect(response.status, file).toBe(200);
      expect(response.headers.get('content-type'), file).toBe(
        CONTENT_TYPES[file.slice(file.lastIndexOf('.'))],
      );
      await response.arrayBuffer();
    }

    const head = await fetch(`${server.app.url}/dashboard/app.js`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-type')).toBe('application/javascript; charset=utf-8');
    expect(await head.text()).toBe('');

    const etag = script.headers.get('etag');
    expect(etag).toBeTruthy();
    const again = await fetch(`${server.app.url}/dashboard/app.js`, {
      headers: { 'if-none-match': etag ?? '' },
    });
    expect(again.status).toBe(304);
  });

  test('unknown files, path traversal and other methods are refused', async () => {
    const unknown = await fetch(`${server.app.url}/dashboard/nope.js`);
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    await unknown.text();

    for (const path of [
      '/dashboard/../package.json',
      '/dashboard/..%2fpackage.json',
      '/dashboard/%2e%2e/package.json',
      '/dashboard/static/app.js',
      '/dashboard/index.html/',
    ]) {
      const response = await rawGet(path);
      expect(response.status, path).toBe(404);
      expect(response.body, path).not.toContain('"connectivity-gateway"');
    }

    const post = await fetch(`${server.app.url}/dashboard`, { method: 'POST' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
    await post.text();
  });

  test('the page loads nothing from another origin', () => {
    expect(STATIC_FILES).toContain('index.html');
    for (const file of STATIC_FILES) {
      const text = readFileSync(join(STATIC_DIR, file), 'utf8');
      expect(text, file).not.toMatch(/(?:src|href)\s*=\s*["']?(?:https?:)?\/\//i);
      expect(text, file).not.toMatch(/url\(\s*["']?(?:https?:)?\/\//i);
      expect(text, file).not.toMatch(/@import/i);
      expect(text, file).not.toMatch(/import\s*(?:[^'"]*from\s*)?["']https?:/i);
    }
  });
});

describe('the dashboard in a real browser', () => {
  let tenant: TestTenant;
  let context: BrowserContext;
  let page: Page;
  let profileDir: string;
  const pageErrors: string[] = [];
  const requestedUrls: string[] = [];
  const postedRequests: string[] = [];

  beforeAll(async () => {
    mkdirSync(RESULTS_DIR, { recursive: true });
    tenant = await server.tenant();
    profileDir = mkdtempSync(join(tmpdir(), 'dashboard-chromium-'));
    context = await chromium.launchPersistentContext(profileDir, {
      executablePath: CHROMIUM,
      headless: true,
      args: CHROMIUM_ARGS,
      viewport: { width: 1366, height: 768 },
      locale: 'en-GB',
      timezoneId: 'Europe/Amsterdam',
    });
    context.setDefaultTimeout(SLOW);
    page = context.pages()[0] ?? (await context.newPage());
    page.on('pageerror', (error) => pageErrors.push(String(error)));
    page.on('console', (message) => {
      if (/content security policy/i.test(message.text())) pageErrors.push(message.text());
    });
    page.on('request', (request) => {
      requestedUrls.push(request.url());
      const url = new URL(request.url());
      if (request.method() === 'POST' && url.pathname === '/availability-requests')
        postedRequests.push(url.href);
    });
  }, SLOW);

  afterAll(async () => {
    await context?.close();
    if (profileDir) rmSync(profileDir, { recursive: true, force: true });
  });

  const rowsLocator = () => page.locator('[data-testid="request-row"]');

  test(
    'signs in, refuses a malformed postal code, submits the contract address and watches it complete',
    async () => {
      // A request made elsewhere (the contract's coordinates example) is listed on arrival.
      const other = await tenant.api.post('/availability-requests', [contractExampleBatch[1]]);
      expect(other.status).toBe(201);

      await page.goto(`${server.app.url}/dashboard`);
      await page.getByTestId('signin-client-id').fill(tenant.clientId);
      await page.getByTestId('signin-client-secret').fill(tenant.clientSecret);
      await page.getByTestId('signin-submit').click();

      await page.getByTestId('field-postal_code').waitFor();
      await rowsLocator().first().waitFor();
      expect(await rowsLocator().count()).toBe(1);
      await expectText(page, '[data-testid="instance-id"]', tenant.instanceId);

      // Client-side validation: the options endpoint's pattern rejects a lower-case postal code.
      await page.getByTestId('field-street').fill('Lijnbaansgracht');
      await page.getByTestId('field-house_number').fill('206');
      await page.getByTestId('field-house_number_addition').fill('H');
      await page.getByTestId('field-postal_code').fill('1016 xa');
      await page.getByTestId('field-city').fill('Amsterdam');
      await page.getByTestId('request-submit').click();
      await expectText(page, '[data-testid="error-postal_code"]', 'Postal code');
      expect(await page.getByTestId('field-postal_code').getAttribute('aria-invalid')).toBe('true');
      expect(
        await page
          .getByTestId('field-postal_code')
          .evaluate((input) => (input as HTMLInputElement).validationMessage),
      ).not.toBe('');
      expect(postedRequests).toEqual([]);
      expect(await rowsLocator().count()).toBe(1);

      // The contract's example address.
      await page.getByTestId('field-postal_code').fill('1016 XA');
      await page.getByTestId('request-submit').click();
      await expectText(page, '[data-testid="request-message"]', 'created');
      expect(postedRequests).toHaveLength(1);
      expect(await page.getByTestId('error-postal_code').textContent()).toBe('');

      await page.waitForFunction(() => document.querySelectorAll('[data-testid="request-row"]').length === 2);
      const newRow = rowsLocator().first();
      const id = await newRow.getAttribute('data-request-id');
      expect(id).toMatch(/^avr_/);
      expect(await newRow.textContent()).toContain('Lijnbaansgracht 206 H');
      const stored = await tenant.api.get(`/availability-requests/${id}`);
      expect(stored.body.data.address.postal_code).toBe('1016XA');

      // Its progress bar reaches 100 and its status becomes completed, without reloading the page.
      const row = `[data-testid="request-row"][data-request-id="${id}"]`;
      await page.waitForSelector(`${row} [data-testid="progress"][aria-valuenow="100"]`, { timeout: SLOW });
      await page.waitForSelector(`${row} [data-testid="status"][data-status="completed"]`, { timeout: SLOW });
      expect(await page.locator(`${row} [data-testid="status"]`).textContent()).toBe('Completed');
      await page.waitForFunction(() =>
        [...document.querySelectorAll('[data-testid="status"]')].every(
          (status) => (status as HTMLElement).dataset.status === 'completed',
        ),
      );
      await page.mouse.move(0, 0);
      await page.screenshot({ path: join(RESULTS_DIR, 'dashboard-desktop.png') });

      // Its products, in the detail view.
      const completed = await tenant.api.get(`/availability-requests/${id}`);
      const products: { id: string; mrc: number }[] = completed.body.data.products;
      await page.locator(`${row} [data-testid="request-link"]`).click();
      await page.locator('[data-testid="product-row"]').first().waitFor();
      const productCount = await page.locator('[data-testid="product-row"]').count();
      expect(productCount).toBeGreaterThan(0);
      expect(productCount).toBe(products.length);
      expect(await page.getByTestId('product-count').textContent()).toBe(String(productCount));
      expect(await page.locator('[data-testid="source-row"]').count()).toBeGreaterThan(0);
      expect(await page.getByTestId('detail-status').getAttribute('data-status')).toBe('completed');

      // Sorting by the monthly price orders the rows by it.
      await page.locator('#detail-body button[data-sort="mrc"]').click();
      const sortedIds = await page
        .locator('[data-testid="product-row"]')
        .evaluateAll((rows) => rows.map((row) => (row as HTMLElement).dataset.productId));
      const mrcById = new Map(products.map((product) => [product.id, product.mrc]));
      const sortedPrices = sortedIds.map((productId) => mrcById.get(productId ?? '') ?? Number.NaN);
      expect(sortedPrices).toEqual([...sortedPrices].sort((a, b) => a - b));
      expect(
        await page.locator('#detail-body th:has(button[data-sort="mrc"])').getAttribute('aria-sort'),
      ).toBe('ascending');
      await page.screenshot({ path: join(RESULTS_DIR, 'dashboard-desktop-detail.png') });

      // On a phone: cards, and the same detail.
      await page.setViewportSize({ width: 390, height: 844 });
      await page.screenshot({ path: join(RESULTS_DIR, 'dashboard-phone-detail.png') });
      await page.getByTestId('detail-close').click();
      await page.waitForFunction(() => !(document.getElementById('detail') as HTMLDialogElement).open);
      await page.evaluate(() => window.scrollTo(0, 0));
      await page.screenshot({ path: join(RESULTS_DIR, 'dashboard-phone.png'), fullPage: true });
      const card = await page.locator(row).boundingBox();
      expect(card?.width).toBeLessThanOrEqual(390);

      expect(pageErrors).toEqual([]);
      const origin = new URL(server.app.url).origin;
      expect(requestedUrls.filter((url) => !url.startsWith(origin) && !url.startsWith('data:'))).toEqual([]);
    },
    SLOW * 2,
  );

  test(
    'a pasted auth token signs in; signing out returns to the form',
    async () => {
      await page.setViewportSize({ width: 1366, height: 768 });
      await page.getByTestId('sign-out').click();
      await page.getByTestId('signin-client-id').waitFor();
      expect(await page.evaluate(() => sessionStorage.length)).toBe(0);

      await openTokenForm(page);
      await page.getByTestId('signin-token').fill(tenant.api.token ?? '');
      await page.getByTestId('signin-token-submit').click();
      await page.waitForFunction(() => document.querySelectorAll('[data-testid="request-row"]').length === 2);
      await expectText(page, '[data-testid="user-name"]', 'token');

      // A token the service does not know sends the user back to sign in, with a message.
      await page.getByTestId('sign-out').click();
      await openTokenForm(page);
      await page.getByTestId('signin-token').fill('not-a-token');
      await page.getByTestId('signin-token-submit').click();
      await expectText(page, '[data-testid="signin-error"]', 'sign in again');
      expect(pageErrors).toEqual([]);
    },
    SLOW,
  );

  test(
    'without the event stream the page falls back to polling; coordinates and filters are submitted',
    async () => {
      let blocked = 0;
      await page.route(
        (url) => url.pathname === '/.well-known/mercure',
        (route) => {
          blocked += 1;
          return route.abort();
        },
      );
      await page.getByTestId('signin-client-id').fill(tenant.clientId);
      await page.getByTestId('signin-client-secret').fill(tenant.clientSecret);
      await page.getByTestId('signin-submit').click();
      await page.waitForSelector('[data-testid="live-status"][data-state="polling"]');
      expect(blocked).toBeGreaterThan(0);

      await page.getByTestId('field-use-coordinates').check();
      await page.getByTestId('field-latitude').fill('52.36801');
      await page.getByTestId('field-longitude').fill('4.879151');
      await page.locator('#filters summary').click();
      await page.locator('[data-testid="filter-networks"] label', { hasText: 'KPN' }).click();
      await page.locator('[data-testid="filter-contract_terms"] label', { hasText: '36 months' }).click();
      await page.getByTestId('request-submit').click();
      await page.waitForFunction(() => document.querySelectorAll('[data-testid="request-row"]').length === 3);

      const id = await rowsLocator().first().getAttribute('data-request-id');
      const stored = await tenant.api.get(`/availability-requests/${id}`);
      expect(stored.body.data.filters.networks).toEqual(['KPN']);
      expect(stored.body.data.filters.contract_terms).toEqual([36]);
      expect(stored.body.data.address.coordinates).toEqual({ latitude: 52.36801, longitude: 4.879151 });
      expect(await rowsLocator().first().textContent()).toContain('KPN · 36 months');

      // Only re-reading the list can move this bar: every event-stream connection is refused.
      const row = `[data-testid="request-row"][data-request-id="${id}"]`;
      await page.waitForSelector(`${row} [data-testid="progress"][aria-valuenow="100"]`, { timeout: SLOW });
      await page.waitForSelector(`${row} [data-testid="status"][data-status="completed"]`, { timeout: SLOW });
      await page.unroute((url) => url.pathname === '/.well-known/mercure');
      expect(pageErrors).toEqual([]);
    },
    SLOW * 2,
  );
});

/** Opens the "Use an auth token instead" disclosure (it stays open across sign-outs). */
async function openTokenForm(page: Page): Promise<void> {
  const details = page.locator('details.token-signin');
  if ((await details.getAttribute('open')) === null) await details.locator('summary').click();
  await page.getByTestId('signin-token').waitFor();
}

/** Waits until the element's text contains `text`. */
async function expectText(page: Page, selector: string, text: string): Promise<void> {
  await page.waitForFunction(
    ([selector, text]) => (document.querySelector(selector ?? '')?.textContent ?? '').includes(text ?? ''),
    [selector, text] as const,
    { timeout: SLOW },
  );
}
