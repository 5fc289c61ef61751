import { readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type StaticFile, StaticFiles } from '../static-files.js';

const STATIC_DIR = fileURLToPath(new URL('./static', import.meta.url));

const HTML = 'text/html; charset=utf-8';
const JAVASCRIPT = 'application/javascript; charset=utf-8';
const CSS = 'text/css; charset=utf-8';

/** The page's ES modules: `app.js` is the entry, the others are imported by it or by each other. */
const MODULES = [
  'app.js',
  'add-to-quote.js',
  'address-fields.js',
  'api.js',
  'cancel-order.js',
  'charges.js',
  'config.js',
  'customer-search.js',
  'dom.js',
  'events.js',
  'filters.js',
  'format.js',
  'graphql.js',
  'header.js',
  'manual-line.js',
  'order-lines.js',
  'order-page.js',
  'order-summary.js',
  'orders.js',
  'place-order.js',
  'problems.js',
  'products-table.js',
  'quote-page.js',
  'request-detail.js',
  'request-form.js',
  'requests-list.js',
  'router.js',
  'session.js',
  'signin.js',
  'state.js',
] as const;

/** The page's stylesheets, in the order index.html links them (later ones win ties). */
const STYLESHEETS = [
  'base.css',
  'header.css',
  'layout.css',
  'components.css',
  'form.css',
  'list.css',
  'detail.css',
  'products.css',
  'pages.css',
  'orders.css',
  'motion.css',
  'utilities.css',
] as const;

/** A file of the static folder. */
const file = (name: string, contentType: string): StaticFile => ({
  read: () => readFileSync(join(STATIC_DIR, name)),
  contentType,
});

/**
 * The only files the dashboard serves, by name under `/dashboard/`, with headers on every response: no
 * framing, no sniffing, nothing from another origin.
 */
const FILES = new StaticFiles(
  new Map([
    ['', file('index.html', HTML)],
    ...MODULES.map((name) => [name, file(name, JAVASCRIPT)] as const),
    ...STYLESHEETS.map((name) => [name, file(name, CSS)] as const),
  ]),
  {
    'content-security-policy':
      "default-src 'self'; connect-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; frame-ancestors 'none'",
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'same-origin',
  },
);

function sendText(res: ServerResponse, status: number, text: string, extra: Record<string, string> = {}) {
  res.writeHead(status, {
    ...FILES.securityHeaders,
    'content-type': 'text/plain; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    'cache-control': 'no-cache',
    ...extra,
  });
  res.end(text);
}

/**
 * Serves the live dashboard from `src/dashboard/static/`: `/dashboard` and `/dashboard/` (the page), its ES
 * modules (`/dashboard/app.js`, the entry, and the modules it imports, e.g. `/dashboard/api.js`) and its
 * stylesheets (e.g. `/dashboard/base.css`). Only that fixed allow-list of files is ever read (no path from
 * the request reaches the file system); each is read once and kept in memory. Responses carry a strict
 * `Content-Security-Policy` (same origin only, no inline script or style), `X-Content-Type-Options: nosniff`,
 * `Cache-Control: no-cache` and an `ETag` (a matching `If-None-Match` answers 304).
 *
 * Only GET and HEAD are served (405 with `Allow` otherwise); any other name under `/dashboard/` is a 404.
 *
 * @param req the incoming request (its method and `If-None-Match` are read).
 * @param res the response, written and ended when the path is the dashboard's.
 * @param pathname the request's URL path, already parsed (e.g. `new URL(req.url, base).pathname`).
 * @returns `true` when the path belongs to the dashboard and the response was sent; `false` for any other
 *   path, so the caller continues with its own routes.
 */
export function serveDashboard(req: IncomingMessage, res: ServerResponse, pathname: string): boolean {
  let name: string;
  if (pathname === '/dashboard' || pathname === '/dashboard/') name = '';
  else if (pathname.startsWith('/dashboard/')) name = pathname.slice('/dashboard/'.length);
  else return false;

  if (!FILES.has(name)) {
    sendText(res, 404, 'Not found.\n');
    return true;
  }
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    sendText(res, 405, 'Method not allowed: use GET or HEAD.\n', { allow: 'GET, HEAD' });
    return true;
  }
  if (!FILES.send(req, res, name)) sendText(res, 404, 'Not found.\n');
  return true;
}
