import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoInstanceProductsPath } from '../../src/resolvers/instance-products.js';
import { type Json, startTestServer, type TestServer } from '../helpers/app.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

describe('GET /instance-products and GET /mandatory-products', () => {
  /** The demo file's items of one kind, as the list must show them: prices in euros, sorted by name. */
  function demoItems(mandatory: boolean) {
    const file = JSON.parse(readFileSync(demoInstanceProductsPath, 'utf8'));
    return file.products
      .filter((item: Json) => item.mandatory === mandatory)
      .sort((a: Json, b: Json) => (a.name < b.name ? -1 : 1))
      .map((item: Json) => ({
        id: expect.stringMatching(mandatory ? /^mpr_[0-9a-z]{26}$/ : /^ipr_[0-9a-z]{26}$/),
        name: item.name,
        description: item.description,
        mrc: item.mrc / 100,
        nrc: item.nrc / 100,
        currency: 'EUR',
        // Issue 49: the demo's mandatory items need no delivery; the others are moved by hand.
        fulfilment: item.fulfilment ?? 'manual',
        _document_type: mandatory ? 'mandatory_product' : 'instance_product',
      }));
  }

  it('when the instance has the demo items, then both lists show them exactly, sorted by name', async () => {
    const tenant = await server.tenant();

    const products = await tenant.api.get('/instance-products');
    const required = await tenant.api.get('/mandatory-products');

    expect(products.status).toBe(200);
    expect(products.body).toEqual({ data: demoItems(false) });
    expect(products.body.data.map((item: Json) => item.name).slice(0, 2)).toEqual([
      'Fixed IPv4 subnet /29',
      'Managed Wi-Fi access point',
    ]);
    expect(required.status).toBe(200);
    expect(required.body).toEqual({ data: demoItems(true) });
    expect(required.body.data.map((item: Json) => [item.name, item.fulfilment])).toEqual([
      ['Administration fee', 'none'],
      ['Service desk access', 'none'],
    ]);
    expect(new Set(products.body.data.map((item: Json) => item.fulfilment))).toEqual(new Set(['manual']));
  });
});
