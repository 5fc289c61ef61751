import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type Json,
  startTestServer,
  type TestServer,
  type TestTenant,
  tempDatabasePath,
} from '../helpers/app.js';
import { runCli } from '../helpers/cli.js';

const database = tempDatabasePath();
const files = mkdtempSync(join(tmpdir(), 'gateway-import-'));
let server: TestServer;
let tenant: TestTenant;
let fileCount = 0;

// The service runs on the same database: what the CLI imports is read back through its REST API.
beforeAll(async () => {
  server = await startTestServer({ databasePath: database.path });
  tenant = await server.tenant({ code: 'IMPORT', demoCatalog: false });
});

afterAll(async () => {
  await server.close();
  database.remove();
  rmSync(files, { recursive: true, force: true });
});

/** Writes an import file to the test's folder and answers its path. */
function importFile(content: unknown): string {
  fileCount += 1;
  const path = join(files, `products-${fileCount}.json`);
  writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
  return path;
}

const importProducts = (instance: string, file: string) =>
  runCli(database.path, ['instance-product', 'import', '--instance', instance, '--file', file]);

/** Both catalogue lists of the tenant, as REST shows them. */
const catalogue = async () => ({
  products: (await tenant.api.get('/instance-products')).body.data,
  mandatory: (await tenant.api.get('/mandatory-products')).body.data,
});

describe('instance-product import', () => {
  it('when given a valid file, then prints the created rows exactly and the REST lists show them', async () => {
    const file = importFile({
      currency: 'EUR',
      products: [
        { name: 'Router rental', description: 'Per month.', mrc: 1999, nrc: 4900, mandatory: false },
        { name: 'Handling fee', mrc: 0, nrc: 2500, mandatory: true, fulfilment: 'none' },
      ],
    });

    const result = await importProducts('IMPORT', file);

    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const rows = JSON.parse(result.stdout);
    expect(rows).toEqual([
      {
        id: expect.stringMatching(/^ipr_[0-9a-z]{26}$/),
        name: 'Router rental',
        mandatory: false,
        mrc_minor: 1999,
        nrc_minor: 4900,
        currency: 'EUR',
        fulfilment: 'manual',
      },
      {
        id: expect.stringMatching(/^mpr_[0-9a-z]{26}$/),
        name: 'Handling fee',
        mandatory: true,
        mrc_minor: 0,
        nrc_minor: 2500,
        currency: 'EUR',
        fulfilment: 'none',
      },
    ]);
    expect(await catalogue()).toEqual({
      products: [
        {
          id: rows[0].id,
          name: 'Router rental',
          description: 'Per month.',
          mrc: 19.99,
          nrc: 49,
          currency: 'EUR',
          fulfilment: 'manual',
          _document_type: 'instance_product',
        },
      ],
      mandatory: [
        {
          id: rows[1].id,
          name: 'Handling fee',
          description: '',
          mrc: 0,
          nrc: 25,
          currency: 'EUR',
          fulfilment: 'none',
          _document_type: 'mandatory_product',
        },
      ],
    });
  });

  it('when the instance is given by id, then the products go to that instance', async () => {
    const file = importFile({
      currency: 'USD',
      products: [{ name: 'Cable', mrc: 0, nrc: 1050, mandatory: false }],
    });

    const result = await importProducts(tenant.instanceId, file);

    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual([
      {
        id: expect.stringMatching(/^ipr_/),
        name: 'Cable',
        mandatory: false,
        mrc_minor: 0,
        nrc_minor: 1050,
        currency: 'USD',
        fulfilment: 'manual',
      },
    ]);
    expect((await catalogue()).products.map((item: Json) => [item.name, item.nrc, item.currency])).toEqual([
      ['Cable', 10.5, 'USD'],
      ['Router rental', 49, 'EUR'],
    ]);
  });

  it('when a price is negative and a key unknown, then exits 1 with VALIDATION naming both and imports nothing', async () => {
    const before = await catalogue();
    const file = importFile({
      currency: 'EUR',
      products: [
        { name: 'Good', mrc: 100, nrc: 0, mandatory: false },
        { name: 'Negative', mrc: -1, nrc: 0, mandatory: false },
        { name: 'Coloured', mrc: 100, nrc: 0, mandatory: false, colour: 'blue' },
      ],
    });

    const result = await importProducts('IMPORT', file);

    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(JSON.parse(result.stderr)).toEqual({
      error: 'VALIDATION',
      message: 'The file is invalid.',
      problems: [
        { path: '/products/1/mrc', message: 'Too small: expected number to be >=0' },
        { path: '/products/2/colour', message: 'is not a known field' },
      ],
    });
    expect(await catalogue()).toEqual(before);
  });

  it('when the file is not JSON, then exits 1 with VALIDATION about the file and imports nothing', async () => {
    const before = await catalogue();

    const result = await importProducts('IMPORT', importFile('{"currency": "EUR", "products": ['));

    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    const error = JSON.parse(result.stderr);
    expect(error.error).toBe('VALIDATION');
    // The operator gave --file, not --rules: the message must be about the file.
    expect(error.message).not.toMatch(/--rules/);
    expect(await catalogue()).toEqual(before);
  });

  it('when the instance is unknown, then exits 1 with NOT_FOUND and imports nothing', async () => {
    const file = importFile({
      currency: 'EUR',
      products: [{ name: 'Lost', mrc: 1, nrc: 1, mandatory: false }],
    });

    const result = await importProducts('NOPE', file);

    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(JSON.parse(result.stderr)).toEqual({
      error: 'NOT_FOUND',
      message: 'Instance "NOPE" was not found.',
      problems: [],
    });
  });
});
