import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Json } from '../helpers/app.js';
import {
  type Browser,
  launchBrowser,
  RESULTS_DIR,
  type SalesSetup,
  SLOW,
  startSales,
} from './orders-fixtures.js';
import { day, euros, type PageSteps, pageSteps } from './orders-page.js';

/*
 * Issue 36, item 4: the salesperson's whole flow in the dashboard, in headless Chromium — sign in, ask for
 * an address's availability, put two of its products on a new quote of a customer found by name (the second
 * onto that existing quote), place the order, follow it live while the seller holds each line on a
 * construction charge, accept the charges, and see the order completed. Cancelling and changed prices on the
 * page: orders-cancel.test.ts.
 */

let sales: SalesSetup;
let browser: Browser;
let page: Page;
let ui: PageSteps;

beforeAll(async () => {
  sales = await startSales();
  browser = await launchBrowser();
  page = browser.page;
  ui = pageSteps(page, sales.server.app.url);
}, SLOW);

afterAll(async () => {
  await browser?.close();
  await sales?.close();
});

/** Opens the request's dialog, selects one product and finds the customer by part of its name. */
async function selectProductFor(requestId: string, productId: string, customerName: string): Promise<void> {
  await page.getByRole('link', { name: 'Availability requests' }).click();
  await page.locator(`[data-request-id="${requestId}"] [data-testid="request-link"]`).click();
  await page.locator(`[data-product-id="${productId}"]`).getByRole('checkbox').check();
  await page.getByLabel('Customer name').fill('acme');
  await page.getByRole('button', { name: 'Find customer' }).click();
  await ui.expectText('[data-testid="customer-status"]', '2 customers match.');
  await page.getByRole('radio', { name: customerName }).check();
}

describe('the salesperson’s flow in a real browser', () => {
  test(
    'from sign-in through a request, a quote and an order with an accepted charge to completed',
    async () => {
      const { admin, salesperson } = sales;
      const customer = (await admin.api.post('/customers', { name: 'Acme Logistics B.V.' })).body.data;
      await admin.api.post('/customers', { name: 'Acme Retail' });

      // Sign in as the salesperson and ask for the contract's address.
      await ui.signIn(salesperson);
      await page.getByTestId('field-street').fill('Lijnbaansgracht');
      await page.getByTestId('field-house_number').fill('206');
      await page.getByTestId('field-house_number_addition').fill('H');
      await page.getByTestId('field-postal_code').fill('1016 XA');
      await page.getByTestId('field-city').fill('Amsterdam');
      await page.getByRole('button', { name: 'Check availability' }).click();
      const row = page.locator('[data-testid="request-row"]').first();
      await row.waitFor();
      const requestId = (await row.getAttribute('data-request-id')) ?? '';
      await page.waitForSelector(
        `[data-request-id="${requestId}"] [data-testid="status"][data-status="completed"]`,
        { timeout: SLOW },
      );
      const gathered = (await admin.api.get(`/availability-requests/${requestId}`)).body.data;
      const [first, second] = gathered.products as Json[];
      expect(first).toBeDefined();
      expect(second).toBeDefined();

      // The first product onto a new quote of the customer, found by part of its name.
      await selectProductFor(requestId, first.id, 'Acme Logistics B.V.');
      await ui.expectText(
        '[data-testid="selection-summary"]',
        `1 product selected · ${euros(first.mrc)} a month`,
      );
      await expect(page.getByRole('radio', { name: 'A new quote' }).isChecked()).resolves.toBe(true);
      await page.getByLabel('Name of the new quote').fill('Head office');
      await page.getByRole('button', { name: 'Add to quote' }).click();
      await page.waitForFunction(() => location.hash.startsWith('#/quotes/'));
      const quoteId = await ui.idInHash('quotes');
      await ui.expectText('[data-testid="quote-title"]', 'Head office');
      await expect(
        page.locator('#detail').evaluate((dialog) => (dialog as HTMLDialogElement).open),
      ).resolves.toBe(false);

      // The second product onto that quote, chosen among the customer's quotes.
      const created = (await admin.api.get(`/quotes/${quoteId}`)).body.data;
      await selectProductFor(requestId, second.id, 'Acme Logistics B.V.');
      const existing = page.getByRole('radio', {
        name: new RegExp(`^${created.quote_number} · Head office`),
      });
      await existing.check();
      await page.screenshot({ path: join(RESULTS_DIR, 'dashboard-add-to-quote.png') });
      await page.getByRole('button', { name: 'Add to quote' }).click();
      await page.waitForFunction((id) => location.hash === `#/quotes/${id}`, quoteId);
      await page.waitForFunction(() => document.querySelectorAll('[data-testid="quote-line"]').length === 2);

      // The quote's page: customer, lines, totals and validity as the API has them.
      const quote = (await admin.api.get(`/quotes/${quoteId}`)).body.data;
      expect(quote.customer.id).toBe(customer.id);
      expect(quote.products.map((line: Json) => line.product_id)).toEqual([first.id, second.id]);
      await ui.expectText('[data-testid="quote-customer"]', 'Acme Logistics B.V.');
      await ui.expectText('[data-testid="quote-total-mrc"]', euros(quote.total_mrc));
      await ui.expectText('[data-testid="quote-total-nrc"]', euros(quote.total_nrc));
      await ui.expectText('[data-testid="quote-validity"]', day(quote.expiration_date));
      expect(await page.locator('[data-testid="quote-line"] td:first-child').allTextContents()).toEqual(
        quote.products.map((line: Json) => line.name),
      );
      await page.screenshot({ path: join(RESULTS_DIR, 'dashboard-quote.png'), fullPage: true });

      // Place the order, with a contact for the seller.
      await page.getByLabel('Name', { exact: true }).fill('Acme NOC');
      await page.getByLabel('Email address').fill('noc@acme.example');
      await page.getByRole('button', { name: 'Place order' }).click();
      await page.waitForFunction(() => location.hash.startsWith('#/orders/'));
      const orderId = await ui.idInHash('orders');
      expect(orderId).toMatch(/^ord_/);
      await ui.expectText('[data-testid="order-title"]', 'Order for Acme Logistics B.V.');
      // A marker that a reload would lose: everything below arrives without one.
      await ui.markPage();

      // The seller holds each line on a construction charge: the page shows it, with the survey's milestone.
      const lines = page.locator('[data-testid="order-line"]');
      await page.waitForFunction(
        () => document.querySelectorAll('[data-testid="charge"][data-state="awaitingResponse"]').length === 2,
        undefined,
        { timeout: SLOW },
      );
      const held = (await admin.api.get(`/orders/${orderId}`)).body.data;
      expect(held.lines.map((line: Json) => [line.status, line.supplier_status])).toEqual([
        ['in_progress', 'held'],
        ['in_progress', 'held'],
      ]);
      for (const [index, line] of (held.lines as Json[]).entries()) {
        const card = lines.nth(index);
        await expect(card.getAttribute('data-line-id')).resolves.toBe(line.id);
        await expect(card.getByTestId('line-status').textContent()).resolves.toBe('In progress');
        await expect(card.getByTestId('line-supplier-status').textContent()).resolves.toBe('held');
        await expect(card.getByTestId('milestone').allTextContents()).resolves.toEqual([
          expect.stringContaining('site survey completed'),
        ]);
        await expect(card.getByTestId('charge-item').textContent()).resolves.toContain(
          `Construction, one-off${euros(750)}`,
        );
      }
      await ui.expectText('[data-testid="order-status"]', 'In progress');
      await page.screenshot({ path: join(RESULTS_DIR, 'dashboard-order-held.png'), fullPage: true });

      // The open orders list has it, flagged for the charges that wait.
      await page.getByRole('link', { name: 'Open orders' }).first().click();
      const listed = page.locator(`[data-testid="order-row"][data-order-id="${orderId}"]`);
      await listed.waitFor();
      await expect(listed.textContent()).resolves.toContain('2 charges await your answer');
      await expect(listed.getByTestId('order-status').textContent()).resolves.toBe('In progress');
      await page.screenshot({ path: join(RESULTS_DIR, 'dashboard-open-orders.png') });
      await listed.getByRole('link', { name: 'Acme Logistics B.V.' }).click();
      await ui.expectText('[data-testid="order-title"]', 'Order for Acme Logistics B.V.');

      // Accept both charges: the lines complete, then the order, live.
      for (const line of held.lines as Json[]) {
        await page.getByRole('button', { name: `Accept charge on ${line.name}` }).click();
        await ui.expectText(`[data-line-id="${line.id}"] [data-testid="charge-state"]`, 'Accepted');
      }
      await page.waitForSelector('[data-testid="order-status"][data-status="completed"]', { timeout: SLOW });
      const done = (await admin.api.get(`/orders/${orderId}`)).body.data;
      expect(done.status).toBe('completed');
      for (const line of done.lines as Json[]) {
        const card = page.locator(`[data-line-id="${line.id}"]`);
        expect(line.status).toBe('completed');
        await expect(card.getByTestId('line-status').textContent()).resolves.toBe('Completed');
        await expect(card.getByTestId('line-inventory').textContent()).resolves.toBe(
          line.inventory_product_id,
        );
        await expect(card.getByTestId('charge-state').textContent()).resolves.toBe('Accepted');
        expect(line.charges[0].items[0].state).toBe('acceptedByBuyer');
      }
      await ui.expectText('[data-testid="order-progress"]', '2 of 2 completed');
      expect(await page.getByRole('button', { name: 'Cancel order' }).isVisible()).toBe(false);
      expect(await ui.notReloaded()).toBe(true);
      await page.waitForSelector('[data-testid="live-status"][data-state="live"]');
      await page.evaluate(() => window.scrollTo(0, 0));
      await page.screenshot({ path: join(RESULTS_DIR, 'dashboard-order-completed.png'), fullPage: true });

      // Completed, it has left the open orders; the quote shows its order and is not ordered again.
      await page.getByRole('link', { name: 'Open orders' }).first().click();
      await page.waitForSelector('#orders-empty:not([hidden])');
      await page.goto(`${sales.server.app.url}/dashboard#/quotes/${quoteId}`);
      await page.locator('[data-testid="quote-orders"] a', { hasText: orderId }).waitFor();
      await ui.expectText('[data-testid="place-note"]', 'This quote has been ordered: see its order above.');
      expect(await page.getByRole('button', { name: 'Place order' }).isVisible()).toBe(false);

      await page.setViewportSize({ width: 390, height: 844 });
      await page.goto(`${sales.server.app.url}/dashboard#/orders/${orderId}`);
      await ui.expectText('[data-testid="order-status"]', 'Completed');
      await page.screenshot({ path: join(RESULTS_DIR, 'dashboard-order-phone.png'), fullPage: true });

      expect(browser.pageErrors).toEqual([]);
      const origin = new URL(sales.server.app.url).origin;
      expect(
        browser.requestedUrls.filter((url) => !url.startsWith(origin) && !url.startsWith('data:')),
      ).toEqual([]);
    },
    SLOW * 3,
  );

  test(
    'a quote of the instance’s own product is ordered from its page; its manual line is marked completed',
    async () => {
      const { admin } = sales;
      const router = await admin.api.graphql(
        `mutation ($input: InstanceProductInput!) { createInstanceProduct(input: $input) { product { id } } }`,
        { input: { name: 'Router rental', mrc: 9.5, nrc: 0, currency: 'EUR' } },
      );
      const customer = (await admin.api.post('/customers', { name: 'Bakery De Vries' })).body.data;
      const quote = (
        await admin.api.post('/quotes', {
          name: 'Shop router',
          customer_id: customer.id,
          instance_product_ids: [router.data.createInstanceProduct.product.id],
        })
      ).body.data;

      await page.setViewportSize({ width: 1366, height: 768 });
      await page.goto(`${sales.server.app.url}/dashboard#/quotes/${quote.id}`);
      await ui.expectText('[data-testid="quote-title"]', 'Shop router');
      await ui.expectText('[data-testid="quote-total-mrc"]', euros(9.5));
      await page.getByRole('button', { name: 'Place order' }).click();
      await page.waitForFunction(() => location.hash.startsWith('#/orders/'));
      const orderId = await ui.idInHash('orders');
      const line = page.locator('[data-testid="order-line"]');
      await ui.expectText('[data-testid="line-status"]', 'Pending');
      await expect(line.locator('.tag').textContent()).resolves.toBe('Manual');

      await page.getByRole('button', { name: 'Mark completed: Router rental' }).click();
      await page.waitForSelector('[data-testid="order-status"][data-status="completed"]', { timeout: SLOW });
      await ui.expectText('[data-testid="line-status"]', 'Completed');
      const done = (await admin.api.get(`/orders/${orderId}`)).body.data;
      expect([done.status, done.lines[0].status, done.lines[0].fulfilment]).toEqual([
        'completed',
        'completed',
        'manual',
      ]);
      expect(await page.getByRole('button', { name: /^Mark / }).count()).toBe(0);
      expect(browser.pageErrors).toEqual([]);
    },
    SLOW,
  );
});
