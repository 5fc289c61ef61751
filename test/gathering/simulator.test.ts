import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import getPort from 'get-port';
import { afterEach, describe, expect, it } from 'vitest';
import { simulatedOffers } from '../../src/gathering/simulator/offers.js';
import { demoCatalogPath, readCatalogFile } from '../../src/gathering/sources/catalog-file.js';
import {
  type SupplierRequest,
  supplierResponseSchema,
} from '../../src/gathering/sources/supplier-contract.js';

const projectRoot = fileURLToPath(new URL('../..', import.meta.url));

const request: SupplierRequest = {
  request_id: 'avr_01m81c3718e04ss8zkx0k227dm',
  address: {
    country_code: 'NL',
    postal_code: '1016XA',
    house_number: '206',
    house_number_addition: 'H',
    street: 'Lijnbaansgracht',
    city: 'Amsterdam',
    coordinates: { latitude: 52.36801, longitude: 4.879151 },
  },
  filters: { bandwidths: [], networks: [], contract_terms: [], connection_types: [], technology_types: [] },
};

let child: ChildProcessWithoutNullStreams | null = null;

afterEach(() => {
  if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  child = null;
});

/** `npm run supplier-sim -- --port <port> …` without npm: starts it and waits for its banner line. */
async function startSimulator(args: string[] = []): Promise<{ url: string; banner: string }> {
  const port = await getPort({ host: '127.0.0.1' });
  const started = spawn(
    process.execPath,
    ['--import', 'tsx', 'src/gathering/simulator/main.ts', '--port', String(port), ...args],
    { cwd: projectRoot, stdio: ['pipe', 'pipe', 'pipe'] },
  );
  child = started;
  let stdout = '';
  let stderr = '';
  started.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  await new Promise<void>((resolve, reject) => {
    started.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      if (stdout.includes('\n')) resolve();
    });
    started.once('exit', (code) => reject(new Error(`simulator exited ${code}: ${stderr}`)));
  });
  return { url: `http://127.0.0.1:${port}`, banner: stdout };
}

const post = (url: string, body: unknown) =>
  fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

describe('supplier simulator (npm run supplier-sim)', () => {
  it('when asked for kpn-wba at 1016XA, then it answers 200 with the contract’s offers, and SIGTERM stops it with exit 0', async () => {
    const { url, banner } = await startSimulator(['--latency-min', '0', '--latency-max', '20']);
    expect(banner).toBe(
      `supplier simulator on ${url}/suppliers/<source-key>/availability\n` +
        `  orders: ${url}/suppliers/<source-key>/orders\n`,
    );

    const response = await post(`${url}/suppliers/kpn-wba/availability`, request);

    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json');
    const body = await response.json();
    const parsed = supplierResponseSchema.safeParse(body);
    expect(parsed.success).toBe(true);
    const expected = simulatedOffers(readCatalogFile(demoCatalogPath), 'kpn-wba', request);
    expect(expected.length).toBeGreaterThan(0);
    expect(body).toEqual({ offers: expected });
    expect(new Set(body.offers.map((offer: { network: string }) => offer.network))).toEqual(new Set(['KPN']));
    const stats = await (await fetch(`${url}/stats`)).json();
    expect(stats['kpn-wba']).toMatchObject({ calls: 1, maxInFlight: 1 });

    const exited = once(child as ChildProcessWithoutNullStreams, 'exit');
    child?.kill('SIGTERM');
    const [code, signal] = await exited;

    expect([code, signal]).toEqual([0, null]);
  });

  it('when started with --failure-rate 1, then every call is answered 503', async () => {
    const { url } = await startSimulator(['--failure-rate', '1', '--latency-max', '0']);

    const responses = await Promise.all(
      ['kpn-wba', 'colt', 'ziggo'].map((key) => post(`${url}/suppliers/${key}/availability`, request)),
    );

    expect(responses.map((response) => response.status)).toEqual([503, 503, 503]);
  });

  it('when asked for an unknown path, then it answers 404', async () => {
    const { url } = await startSimulator();

    const response = await post(`${url}/nowhere`, request);

    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({ error: 'not found' });
  });
});
