import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import { type SonataSeller, startSonataSeller } from '../../src/gathering/simulator/sonata/server.js';
import { createApplication } from '../../src/resolvers/operator.js';
import { registerSonata } from '../gathering/sonata-gateway.js';
import { sellerSettings } from '../gathering/sources/mef-sonata/fixtures.js';
import { startTestServer, type TestServer, type TestTenant } from '../helpers/app.js';

/*
 * What the salesperson's dashboard test stands on: a gateway whose instance buys from one simulated Sonata
 * seller (KPN) that holds every order item on a blocking construction charge until the buyer answers, a
 * salesperson's application (requests, quotes, orders), and headless Chromium as dashboard.test.ts drives it;
 * for cancelling and changed prices, a second instance with a seller of its own (`startCancelSales`).
 */

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
export const RESULTS_DIR = fileURLToPath(new URL('../../test-results', import.meta.url));
/** Generous: gathering and ordering run on simulated seller steps, and CI machines are slow. */
export const SLOW = 60_000;

/** The gateway, its seller and the salesperson's credentials. */
export interface SalesSetup {
  server: TestServer;
  seller: SonataSeller;
  /** The instance's admin (registers the source); its `api` reads what the browser did. */
  admin: TestTenant;
  /** Client credentials of an application with `connectivity_check` and `ordering`. */
  salesperson: { clientId: string; clientSecret: string };
  close(): Promise<void>;
}

/** Starts the gateway and the seller, registers KPN via Sonata (orders held on a charge), makes a salesperson. */
export async function startSales(): Promise<SalesSetup> {
  const seller = await startSonataSeller({ behaviour: { stepMs: 20 } });
  const server = await startTestServer();
  const admin = await server.tenant({ demoCatalog: false, roles: ['instance_admin', 'connectivity_check'] });
  await registerSonata(
    admin,
    'kpn-wba',
    'KPN',
    sellerSettings(seller, 'kpn-wba', 'instant', 'instant', {
      query: { order: 'hold-charge', charge_due_ms: '600000' },
    }),
  );
  const salesperson = await createApplication(server.app.services, {
    instance: admin.instanceId,
    name: 'Sales desk',
    roles: ['connectivity_check', 'ordering'],
  });
  return {
    server,
    seller,
    admin,
    salesperson,
    async close() {
      await server.close();
      await seller.stop();
    },
  };
}

/** A second instance of the same gateway, with its own seller and salesperson. */
export interface CancelSetup {
  seller: SonataSeller;
  admin: TestTenant;
  salesperson: { clientId: string; clientSecret: string };
  close(): Promise<void>;
}

/**
 * Starts a second instance on `server` buying from its own simulated Sonata seller whose orders stay
 * `acknowledged` (one step a minute, longer than a test takes) while their cancellations move every 20 ms:
 * Ziggo asks a cancellation charge (`cancel=charge`, due in ten minutes), Eurofiber's quotes lapse at once
 * and come back 10 % dearer a month (`quote_valid_ms=0`, `requote_price=changed`).
 */
export async function startCancelSales(server: TestServer): Promise<CancelSetup> {
  const seller = await startSonataSeller({ behaviour: { stepMs: 60_000 } });
  const admin = await server.tenant({ demoCatalog: false, roles: ['instance_admin', 'connectivity_check'] });
  await registerSonata(
    admin,
    'ziggo',
    'Ziggo',
    sellerSettings(seller, 'ziggo', 'instant', 'instant', {
      query: { cancel: 'charge', cancel_step_ms: '20', charge_due_ms: '600000' },
    }),
  );
  await registerSonata(
    admin,
    'eurofiber',
    'Eurofiber',
    sellerSettings(seller, 'eurofiber', 'instant', 'instant', {
      query: { quote_valid_ms: '0', requote_price: 'changed' },
    }),
  );
  const salesperson = await createApplication(server.app.services, {
    instance: admin.instanceId,
    name: 'Sales desk',
    roles: ['connectivity_check', 'ordering'],
  });
  return { seller, admin, salesperson, close: () => seller.stop() };
}

/** A headless Chromium page with what went wrong on it collected. */
export interface Browser {
  page: Page;
  /** Uncaught errors and CSP violations of the page. */
  pageErrors: string[];
  /** Every URL the page requested. */
  requestedUrls: string[];
  close(): Promise<void>;
}

/** Launches Chromium on a fresh profile (desktop size, en-GB, Amsterdam time) and opens one page. */
export async function launchBrowser(): Promise<Browser> {
  mkdirSync(RESULTS_DIR, { recursive: true });
  const profileDir = mkdtempSync(join(tmpdir(), 'dashboard-orders-chromium-'));
  const context: BrowserContext = await chromium.launchPersistentContext(profileDir, {
    executablePath: CHROMIUM,
    headless: true,
    args: CHROMIUM_ARGS,
    viewport: { width: 1366, height: 768 },
    locale: 'en-GB',
    timezoneId: 'Europe/Amsterdam',
  });
  context.setDefaultTimeout(SLOW);
  const page = context.pages()[0] ?? (await context.newPage());
  const pageErrors: string[] = [];
  const requestedUrls: string[] = [];
  page.on('pageerror', (error) => pageErrors.push(String(error)));
  page.on('console', (message) => {
    if (/content security policy/i.test(message.text())) pageErrors.push(message.text());
  });
  page.on('request', (request) => requestedUrls.push(request.url()));
  return {
    page,
    pageErrors,
    requestedUrls,
    async close() {
      await context.close();
      rmSync(profileDir, { recursive: true, force: true });
    },
  };
}
