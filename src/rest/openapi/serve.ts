import { readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { AppError } from '../../errors.js';
import { StaticFiles } from '../../static-files.js';
import { sendJson } from '../http.js';
import { toProblem } from '../problem.js';
import { DOCS_HTML, DOCS_INIT_JS } from './docs-page.js';
import { openApiDocument } from './document.js';

const SWAGGER_UI_DIR = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));

/** Where a served file comes from: a file of `swagger-ui-dist`, or text made here. */
type Source = { package: string } | { text: () => string };

/** The only files served, by request path → source and media type. No request path reaches the disk. */
const FILES: ReadonlyMap<string, { source: Source; contentType: string }> = new Map([
  [
    '/openapi.json',
    {
      source: { text: () => JSON.stringify(openApiDocument()) },
      contentType: 'application/json; charset=utf-8',
    },
  ],
  ['/docs', { source: { text: () => DOCS_HTML }, contentType: 'text/html; charset=utf-8' }],
  [
    '/docs/init.js',
    { source: { text: () => DOCS_INIT_JS }, contentType: 'application/javascript; charset=utf-8' },
  ],
  [
    '/docs/swagger-ui-bundle.js',
    { source: { package: 'swagger-ui-bundle.js' }, contentType: 'application/javascript; charset=utf-8' },
  ],
  ['/docs/swagger-ui.css', { source: { package: 'swagger-ui.css' }, contentType: 'text/css; charset=utf-8' }],
  ['/docs/index.css', { source: { package: 'index.css' }, contentType: 'text/css; charset=utf-8' }],
  ['/docs/favicon-32x32.png', { source: { package: 'favicon-32x32.png' }, contentType: 'image/png' }],
  ['/docs/favicon-16x16.png', { source: { package: 'favicon-16x16.png' }, contentType: 'image/png' }],
]);

/**
 * The served files. Security headers: same origin only, no inline script or style; `data:` images for the
 * icons inlined in Swagger UI's stylesheet.
 */
const STATIC = new StaticFiles(
  new Map(
    [...FILES].map(([path, { source, contentType }]) => [
      path,
      {
        contentType,
        read: () =>
          'package' in source
            ? readFileSync(join(SWAGGER_UI_DIR, source.package))
            : Buffer.from(source.text()),
      },
    ]),
  ),
  {
    'content-security-policy':
      "default-src 'self'; connect-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; " +
      "base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'same-origin',
  },
);

function sendProblem(res: ServerResponse, error: AppError): void {
  const problem = toProblem(error);
  sendJson(res, problem.status, problem, 'application/problem+json; charset=utf-8');
}

/**
 * Serves the OpenAPI document and its reference page: `GET /openapi.json` (the document of
 * {@link openApiDocument}), `GET /docs` (Swagger UI) and the page's assets under `/docs/` — Swagger UI's
 * script, stylesheets and icons from the `swagger-ui-dist` package, and the page's own start script. Only
 * that fixed allow-list is served, each file read once and kept in memory, with `Cache-Control: no-cache`,
 * an `ETag` (304 on a matching `If-None-Match`), a same-origin `Content-Security-Policy` and `nosniff`.
 *
 * GET and HEAD only (405 problem+json with `Allow` otherwise); any other path under `/docs/` is a 404
 * problem+json.
 *
 * @param pathname the request's URL path, already parsed (`new URL(req.url, base).pathname`).
 * @returns `true` when the path was one of these and the response was sent; `false` for any other path.
 */
export function serveApiDocs(req: IncomingMessage, res: ServerResponse, pathname: string): boolean {
  const path = pathname === '/docs/' ? '/docs' : pathname;
  if (!STATIC.has(path)) {
    if (!path.startsWith('/docs/')) return false;
    sendProblem(res, new AppError('NOT_FOUND', `No route ${pathname}.`));
    return true;
  }
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.setHeader('allow', 'GET, HEAD');
    sendProblem(res, new AppError('METHOD_NOT_ALLOWED', `Use GET, HEAD on ${pathname}.`));
    return true;
  }
  return STATIC.send(req, res, path);
}
