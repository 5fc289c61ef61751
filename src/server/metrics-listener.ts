import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Config } from '../config.js';
import { AppError } from '../errors.js';
import { sendProblem } from '../rest/router.js';
import type { AppMetrics } from './metrics.js';

/** The listener that serves `/metrics` on `METRICS_PORT`, apart from the instance's `PORT`. */
export interface MetricsListener {
  /** `http://<HOST>:<port>` (an IPv6 host in brackets); `/metrics` is under it. */
  url: string;
  port: number;
  /** Takes no new connection, closes the open ones and resolves once the listener is closed. */
  close(): Promise<void>;
}

/**
 * Starts the metrics listener of an instance (issue 37) when `METRICS_PORT` is set: a plain HTTP server on
 * `HOST:METRICS_PORT` that answers `GET /metrics` (and HEAD) with the app's Prometheus exposition and
 * every other path with a 404 problem. It logs no request and counts none in `http_requests_total`, so a
 * scrape every few seconds adds no line and no series. The dispatcher of `PORT` answers `/metrics` with 404
 * while this listener runs (see `createDispatch`), so an ingress that routes `PORT` cannot expose them.
 *
 * @returns the running listener, or `null` when `METRICS_PORT` is unset (`/metrics` stays on `PORT`).
 * @throws Error when the port cannot be listened on (e.g. `EADDRINUSE`).
 */
export async function startMetricsListener(
  config: Config,
  metrics: AppMetrics,
): Promise<MetricsListener | null> {
  if (config.METRICS_PORT === undefined) return null;
  const server: Server = createServer((req, res) => {
    if (URL.parse(req.url ?? '/', 'http://localhost')?.pathname !== '/metrics')
      return sendProblem(res, new AppError('NOT_FOUND', 'This port serves only /metrics.'));
    metrics.serve(req, res).catch((error: unknown) => {
      if (!res.headersSent) return sendProblem(res, error);
      res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.METRICS_PORT, config.HOST, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const host = config.HOST.includes(':') ? `[${config.HOST}]` : config.HOST;
  return {
    url: `http://${host}:${port}`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
