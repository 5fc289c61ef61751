/**
 * The API reference page at `/docs`: Swagger UI from the `swagger-ui-dist` package, every asset served
 * by this service under `/docs/` (see `serveApiDocs`), and no inline script, so a strict
 * `Content-Security-Policy` holds.
 */
export const DOCS_HTML = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>Connectivity Gateway REST API</title>
    <link rel="stylesheet" href="/docs/swagger-ui.css">
    <link rel="stylesheet" href="/docs/index.css">
    <link rel="icon" type="image/png" href="/docs/favicon-32x32.png" sizes="32x32">
    <link rel="icon" type="image/png" href="/docs/favicon-16x16.png" sizes="16x16">
  </head>
  <body>
    <div id="swagger-ui"></div>
    <script src="/docs/swagger-ui-bundle.js"></script>
    <script src="/docs/init.js"></script>
  </body>
</html>
`;

/**
 * Starts Swagger UI on `/openapi.json`. No validator badge: it would send the document to a third-party
 * service. The base layout has no URL bar, so the page shows this API only.
 */
export const DOCS_INIT_JS = `'use strict';
window.addEventListener('DOMContentLoaded', function () {
  window.ui = window.SwaggerUIBundle({
    url: '/openapi.json',
    dom_id: '#swagger-ui',
    deepLinking: true,
    validatorUrl: null,
    presets: [window.SwaggerUIBundle.presets.apis],
    layout: 'BaseLayout',
  });
});
`;
