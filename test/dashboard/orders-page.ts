import type { Page } from 'playwright-core';
import { SLOW } from './orders-fixtures.js';

/*
 * What the salesperson's dashboard tests read and do on a page, written as the page (en-GB, Amsterdam time,
 * launchBrowser) shows values: money, timestamps, dates; waiting for a text, signing in, telling a reload.
 */

/** An amount in euros as the page shows it ("€1,395.00"). */
export const euros = (amount: number) =>
  new Intl.NumberFormat('en-GB', { style: 'currency', currency: 'EUR' }).format(amount);

/** A timestamp as the page shows it: medium date, short time, Amsterdam time. */
export const dateTime = (iso: string) =>
  new Intl.DateTimeFormat('en-GB', {
    dateStyle: 'medium',
    timeStyle: 'short',
    timeZone: 'Europe/Amsterdam',
  }).format(new Date(iso));

/** A calendar date (`YYYY-MM-DD`) as the page shows it. */
export const day = (date: string) =>
  new Intl.DateTimeFormat('en-GB', { dateStyle: 'medium', timeZone: 'UTC' }).format(
    new Date(`${date}T00:00:00Z`),
  );

/** Steps on one dashboard page of the gateway at `baseUrl`. */
export function pageSteps(page: Page, baseUrl: string) {
  return {
    /** Waits until the element's text is exactly `text`. */
    async expectText(selector: string, text: string): Promise<void> {
      await page.waitForFunction(
        ([selector, text]) => document.querySelector(selector ?? '')?.textContent?.trim() === text,
        [selector, text] as const,
        { timeout: SLOW },
      );
    },

    /** The current location hash's id after `#/<kind>/`. */
    async idInHash(kind: string): Promise<string> {
      return decodeURIComponent((await page.evaluate(() => location.hash)).replace(`#/${kind}/`, ''));
    },

    /** Opens the dashboard signed in with the application's credentials (signing out whoever was). */
    async signIn(credentials: { clientId: string; clientSecret: string }): Promise<void> {
      await page.goto(`${baseUrl}/dashboard`);
      const signOut = page.getByRole('button', { name: 'Sign out' });
      if (await signOut.isVisible()) await signOut.click();
      await page.getByLabel('Client ID').fill(credentials.clientId);
      await page.getByLabel('Client secret').fill(credentials.clientSecret);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByTestId('field-postal_code').waitFor();
    },

    /** Marks the page with something a reload would lose; `notReloaded` reads it. */
    async markPage(): Promise<void> {
      await page.evaluate(() => {
        (window as unknown as { notReloaded: boolean }).notReloaded = true;
      });
    },

    /** Whether the page is the one `markPage` marked: nothing reloaded it since. */
    notReloaded(): Promise<boolean> {
      return page.evaluate(() => (window as unknown as { notReloaded?: boolean }).notReloaded === true);
    },
  };
}

/** {@link pageSteps}' steps. */
export type PageSteps = ReturnType<typeof pageSteps>;
