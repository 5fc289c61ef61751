import type { IncomingMessage } from 'node:http';
import type { Config } from '../config.js';
import { fromTrustedProxy } from '../http/client-address.js';

/**
 * Whether this instance is draining (issue 17): set once, by `stopGracefully`, the moment `stop()` is
 * called. `/readyz` answers 503 from then on, and the request listener closes each connection after its
 * response and refuses reads from a trusted balancer ({@link refusedWhileDraining}).
 */
export interface DrainState {
  draining: boolean;
}

/**
 * Whether a draining instance answers `req` with 503 instead of serving it.
 *
 * A balancer without active health checks (open-source nginx) sends a draining instance traffic until the
 * listener closes, and connections still in the accept queue then are reset: a POST among them would fail.
 * So reads that came through a trusted balancer are answered 503 while draining: the balancer retries
 * them on another instance and, after a few, takes this one out (nginx `max_fails`), so nothing is on its
 * way when the listener closes. Direct clients, probes and writes are served as before.
 *
 * @returns `true` for a `GET` or `HEAD` from a trusted proxy (`TRUSTED_PROXIES`) to anything but a probe.
 */
export function refusedWhileDraining(config: Config, req: IncomingMessage, route: string): boolean {
  return (
    (req.method === 'GET' || req.method === 'HEAD') &&
    route !== '/readyz' &&
    route !== '/healthz' &&
    route !== '/metrics' &&
    fromTrustedProxy(config, req)
  );
}
