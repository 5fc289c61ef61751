/** The Mercure hub's path: the spec's fixed well-known URL (Mercure spec, "Discovery"; RFC 8615). */
export const MERCURE_HUB_PATH = '/.well-known/mercure';

/**
 * The `Link` header of every response that hands out an `sse_jwt`, by which Mercure subscribers discover
 * the hub (Mercure spec, "Discovery"). The target is a relative reference (RFC 8288, section 3.1), resolved
 * against the response's own URL: right behind any proxy, and no Host header is echoed.
 */
export const mercureDiscoveryLink = `<${MERCURE_HUB_PATH}>; rel="mercure"`;
