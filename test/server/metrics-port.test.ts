import { get } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { startTestServer, type TestServer } from '../helpers/app.js';

/*
 * `METRICS_PORT` (issue 37): `/metrics` on a listener of its own, so that whatever routes `PORT` — a
 * Kubernetes Ingress, nginx — cannot expose it. Real servers on 127.0.0.1, `METRICS_PORT=0` picking a free
 * port as `PORT=0` does.
 */

/** The value of one sample, by its exact name and label set as printed; null when absent. */
function sample(text: string, series: string): number | null {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? null : Number(line.slice(series.length + 1));
}

describe('METRICS_PORT', () => {
  let server: TestServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('when it is set on an API instance, then /metrics answers there only, and PORT answers it 404', async () => {
    server = await startTestServer({ env: { METRICS_PORT: '0' } });
    const { app } = server;
    expect(app.metricsUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(app.metricsUrl).not.toBe(app.url);

    expect((await fetch(`${app.url}/healthz`)).status).toBe(200);
    const onPort = await fetch(`${app.url}/metrics`);
    expect([onPort.status, onPort.headers.get('content-type'), await onPort.json()]).toEqual([
      404,
      'application/problem+json; charset=utf-8',
      {
        type: 'urn:connectivity-gateway:problem:not-found',
        title: 'Not found',
        status: 404,
        detail: 'Metrics are served on METRICS_PORT.',
      },
    ]);

    const scrape = await fetch(`${app.metricsUrl}/metrics`);
    expect(scrape.status).toBe(200);
    expect(scrape.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    const text = await scrape.text();
    // The main port's requests are counted, the 404 for /metrics among them; the scrape itself is not.
    expect(sample(text, 'http_requests_total{method="GET",route="/healthz",status="200"}')).toBe(1);
    expect(sample(text, 'http_requests_total{method="GET",route="/metrics",status="404"}')).toBe(1);
    expect(text).toContain('process_resident_memory_bytes ');

    const head = await fetch(`${app.metricsUrl}/metrics`, { method: 'HEAD' });
    expect([head.status, await head.text()]).toEqual([200, '']);
    const post = await fetch(`${app.metricsUrl}/metrics`, { method: 'POST' });
    expect([post.status, post.headers.get('allow')]).toEqual([405, 'GET, HEAD']);
    const other = await fetch(`${app.metricsUrl}/healthz`);
    expect([other.status, (await other.json()).detail]).toEqual([404, 'This port serves only /metrics.']);
  });

  it('when it is set on a worker, then /metrics answers there only, beside the probes on PORT', async () => {
    server = await startTestServer({ role: 'worker', env: { METRICS_PORT: '0' } });
    const { app } = server;
    expect((await fetch(`${app.url}/readyz`)).status).toBe(200);
    expect((await fetch(`${app.url}/metrics`)).status).toBe(404);
    const scrape = await fetch(`${app.metricsUrl}/metrics`);
    expect(scrape.status).toBe(200);
    expect(
      sample(await scrape.text(), 'http_requests_total{method="GET",route="/readyz",status="200"}'),
    ).toBe(1);
  });

  it('when it is unset, then /metrics answers on PORT as before and there is no metrics URL', async () => {
    server = await startTestServer();
    expect(server.app.metricsUrl).toBeNull();
    const scrape = await fetch(`${server.app.url}/metrics`);
    expect(scrape.status).toBe(200);
    expect(await scrape.text()).toContain('http_requests_total');
  });

  it('when the app stops, then the metrics listener is closed too', async () => {
    server = await startTestServer({ env: { METRICS_PORT: '0' } });
    const metricsUrl = server.app.metricsUrl;
    expect((await fetch(`${metricsUrl}/metrics`)).status).toBe(200);
    await server.close();
    server = undefined;
    // A new connection (fetch would reuse its kept-alive one, which the stop closed).
    const refused = await new Promise<string>((resolve) => {
      get(`${metricsUrl}/metrics`, { agent: false }, () => resolve('answered')).once('error', (error) =>
        resolve((error as NodeJS.ErrnoException).code ?? String(error)),
      );
    });
    expect(refused).toBe('ECONNREFUSED');
  });

  it('when it names PORT or is no port, then the configuration is refused naming it', () => {
    expect(() => loadConfig({ PORT: '4000', METRICS_PORT: '4000' })).toThrow(
      new ConfigError('Invalid configuration:\n  METRICS_PORT: must differ from PORT'),
    );
    expect(() => loadConfig({ METRICS_PORT: '70000' })).toThrow(ConfigError);
    expect(() => loadConfig({ METRICS_PORT: 'nine' })).toThrow(ConfigError);
    expect(loadConfig({ METRICS_PORT: '9464' }).METRICS_PORT).toBe(9464);
    expect(loadConfig({}).METRICS_PORT).toBeUndefined();
  });
});
