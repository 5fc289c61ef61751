import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Json } from '../helpers/app.js';
import { orderWhen, sonataQuote } from '../ordering/sonata-orders-fixtures.js';
import {
  type Browser,
  type CancelSetup,
  launchBrowser,
  RESULTS_DIR,
  type SalesSetup,
  SLOW,
  startCancelSales,
  startSales,
} from './orders-fixtures.js';
import { dateTime, euros, type PageSteps, pageSteps } from './orders-page.js';

/*
 * Issue 36, items 1 and 2 in the dashboard, in headless Chromium: an acknowledged order cancelled, its
 * seller's cancellation charge answered, the order cancelled live; a line not ordered because its seller's
 * price changed.
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

describe('cancelling an order, and a seller’s changed price, in a real browser', () => {
  let other: CancelSetup;
  beforeAll(async () => {
    other = await startCancelSales(sales.server);
  }, SLOW);
  afterAll(async () => {
    await other?.close();
  });

  /** Places an order of a quote of the network's first product and a router; read once `ready` holds. */
  async function placed(network: string, ready: (order: Json) => boolean): Promise<Json> {
    const quote = await sonataQuote(other.admin, [network]);
    const created = await other.admin.api.post('/orders', { quote_id: quote.id });
    expect(created.status).toBe(201);
    return orderWhen(other.admin, created.body.data.id, ready);
  }

  test(
    'when the salesperson cancels an acknowledged order, then the seller’s cancellation charge shows live and, accepted, the order ends cancelled without a reload',
    async () => {
      const { admin } = other;
      const order = await placed('Ziggo', (each) => each.lines[0].status === 'submitted');
      const [ziggo, router] = order.lines as Json[];
      expect([ziggo.fulfilment, ziggo.supplier_status, router.fulfilment, router.status]).toEqual([
        'supplier',
        'acknowledged',
        'manual',
        'pending',
      ]);
      const ziggoLine = `[data-line-id="${ziggo.id}"]`;
      const routerLine = `[data-line-id="${router.id}"]`;
      const notice = '[data-testid="order-cancellation"]';

      await ui.signIn(other.salesperson);
      await page.goto(`${sales.server.app.url}/dashboard#/orders/${order.id}`);
      await ui.expectText('[data-testid="order-title"]', 'Order for Acme Logistics B.V.');
      await ui.expectText(`${ziggoLine} [data-testid="line-supplier-status"]`, 'acknowledged');
      await ui.expectText(`${ziggoLine} [data-testid="line-status"]`, 'Submitted');
      await ui.markPage();

      // Cancel it, saying why.
      await page.getByRole('button', { name: 'Cancel order' }).click();
      await page.getByLabel('Reason for cancelling').fill('The customer moved offices.');
      await page.getByRole('button', { name: 'Confirm cancellation' }).click();

      // The 202's order: the cancellation noted with its reason, the manual line cancelled, no second cancel.
      await page.locator(notice).waitFor();
      const asked = (await admin.api.get(`/orders/${order.id}`)).body.data;
      expect(asked.cancellation).toEqual({
        reason: 'The customer moved offices.',
        requested_at: expect.stringMatching(/\+00:00$/),
      });
      await ui.expectText(
        `${notice} [data-testid="cancellation-requested"]`,
        `Requested ${dateTime(asked.cancellation.requested_at)}: “The customer moved offices.”`,
      );
      await expect(
        page.locator(`${notice} [data-testid="cancellation-requested"] time`).getAttribute('datetime'),
      ).resolves.toBe(asked.cancellation.requested_at);
      await ui.expectText(`${routerLine} [data-testid="line-status"]`, 'Cancelled');
      await ui.expectText(`${routerLine} [data-testid="line-cancellation"]`, 'Cancelled');
      expect(await page.getByRole('button', { name: 'Cancel order' }).isVisible()).toBe(false);
      expect(await page.getByRole('button', { name: 'Confirm cancellation' }).isVisible()).toBe(false);
      expect(await page.getByRole('button', { name: /^Mark / }).count()).toBe(0);

      // The seller asks a charge for cancelling: it arrives on the page by itself.
      await page.waitForSelector(`${notice} [data-testid="charge"][data-state="awaitingResponse"]`, {
        timeout: SLOW,
      });
      const charged = (await admin.api.get(`/orders/${order.id}`)).body.data;
      expect(charged.lines.map((line: Json) => [line.status, line.cancellation])).toEqual([
        ['submitted', { state: 'assessing_charge', message: null }],
        ['cancelled', { state: 'done', message: null }],
      ]);
      const [charge] = charged.cancellation_charges as Json[];
      expect(charged.cancellation_charges).toHaveLength(1);
      expect(charge).toMatchObject({
        state: 'awaitingResponse',
        items: [expect.objectContaining({ amount: 500, currency: 'EUR', blocking: true })],
      });
      await expect(
        page.locator(`${notice} [data-testid="charge"]`).getAttribute('data-charge-id'),
      ).resolves.toBe(charge?.id);
      await ui.expectText(
        `${notice} [data-testid="charge-item"]`,
        `Cancellation, one-off${euros(500)}blocks the cancellation until answered`,
      );
      await ui.expectText(
        `${ziggoLine} [data-testid="line-cancellation"]`,
        'Seller asks a cancellation charge',
      );
      await page.evaluate(() => window.scrollTo(0, 0));
      await page.screenshot({ path: join(RESULTS_DIR, 'dashboard-order-cancel-charge.png'), fullPage: true });

      // Accepted, the seller cancels its line and the order ends cancelled, all live.
      await page.getByRole('button', { name: 'Accept charge on the cancellation' }).click();
      await ui.expectText(`${notice} [data-testid="charge-state"]`, 'Accepted');
      await page.waitForSelector('[data-testid="order-status"][data-status="cancelled"]', { timeout: SLOW });
      const done = (await admin.api.get(`/orders/${order.id}`)).body.data;
      expect(done.status).toBe('cancelled');
      expect(done.lines.map((line: Json) => [line.status, line.supplier_status, line.cancellation])).toEqual([
        ['cancelled', 'cancelled', { state: 'done', message: null }],
        ['cancelled', null, { state: 'done', message: null }],
      ]);
      expect(done.cancellation_charges[0].items.map((item: Json) => item.state)).toEqual(['acceptedByBuyer']);
      await ui.expectText('[data-testid="order-status"]', 'Cancelled');
      await ui.expectText('[data-testid="order-progress"]', '0 of 2 completed');
      await expect(
        page.locator('#order-summary').getByRole('progressbar').getAttribute('aria-valuetext'),
      ).resolves.toBe('2 of 2 lines ended');
      await expect(
        page.locator('#order-summary').getByRole('progressbar').getAttribute('data-status'),
      ).resolves.toBe('ended');
      for (const line of [ziggoLine, routerLine]) {
        await ui.expectText(`${line} [data-testid="line-status"]`, 'Cancelled');
        await ui.expectText(`${line} [data-testid="line-cancellation"]`, 'Cancelled');
      }
      await ui.expectText(`${ziggoLine} [data-testid="line-supplier-status"]`, 'cancelled');
      expect(await page.getByRole('button', { name: /charge on/ }).count()).toBe(0);
      expect(await page.getByRole('button', { name: 'Cancel order' }).isVisible()).toBe(false);
      expect(await ui.notReloaded()).toBe(true);
      await page.evaluate(() => window.scrollTo(0, 0));
      await page.screenshot({ path: join(RESULTS_DIR, 'dashboard-order-cancelled.png'), fullPage: true });
      expect(browser.pageErrors).toEqual([]);
    },
    SLOW * 2,
  );

  test(
    'when a seller’s expired quote came back at another price, then its line shows both prices, not ordered',
    async () => {
      const order = await placed('Eurofiber', (each) => each.lines[0].status === 'failed');
      const [eurofiber, router] = order.lines as Json[];
      expect(eurofiber).toMatchObject({
        supplier_order_id: null,
        error: { code: 'SUPPLIER_PRICE_CHANGED' },
      });
      const change = eurofiber.price_change;
      expect(change.currency).toBe('EUR');
      expect(change.new_mrc).toBeGreaterThan(change.quoted_mrc);
      expect(change.new_nrc).toBe(change.quoted_nrc);
      const line = `[data-line-id="${eurofiber.id}"]`;

      await ui.signIn(other.salesperson);
      await page.goto(`${sales.server.app.url}/dashboard#/orders/${order.id}`);
      await ui.expectText(`${line} [data-testid="line-status"]`, 'Failed');
      await ui.expectText(
        `${line} [data-testid="line-price-change"] p`,
        'Not ordered: the seller’s price changed since the quote. SUPPLIER_PRICE_CHANGED',
      );
      await ui.expectText(
        `${line} [data-testid="price-quoted"]`,
        `${euros(change.quoted_mrc)} a month · ${euros(change.quoted_nrc)} once`,
      );
      await ui.expectText(
        `${line} [data-testid="price-new"]`,
        `${euros(change.new_mrc)} a month · ${euros(change.new_nrc)} once`,
      );
      expect(await page.locator(`${line} [data-testid="line-error"]`).count()).toBe(0);
      await ui.expectText(`[data-line-id="${router.id}"] [data-testid="line-status"]`, 'Pending');
      await ui.expectText('[data-testid="order-status"]', 'In progress');
      await page.evaluate(() => window.scrollTo(0, 0));
      await page.screenshot({ path: join(RESULTS_DIR, 'dashboard-order-price-changed.png'), fullPage: true });
      expect(browser.pageErrors).toEqual([]);
    },
    SLOW,
  );
});
