import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PostgresDb } from '../../../src/db/postgres/client.js';
import * as pgQueries from '../../../src/db/postgres/queries/index.js';
import type { SqliteDb } from '../../../src/db/sqlite/client.js';
import * as sqliteQueries from '../../../src/db/sqlite/queries/index.js';
import { openRequestStores, product } from './request-fixtures.js';
import type { TwinStores } from './twin-stores.js';

describe('availability request details on PostgreSQL', () => {
  let stores: TwinStores;
  let db: PostgresDb;
  let lite: SqliteDb;

  beforeAll(async () => {
    stores = await openRequestStores();
    ({ db, lite } = stores);
  });

  afterAll(async () => {
    await stores?.close();
  });

  it('when source outcomes and products are batch-loaded, then their values and order are SQLite’s', async () => {
    const outcomes = await pgQueries.listSourceOutcomes(db, 'ins_a', ['avr_b3', 'avr_a1', 'avr_f7']);
    expect(outcomes).toEqual([
      {
        availabilityRequestId: 'avr_a1',
        sourceId: 'src_ef',
        sourceName: 'Eurofiber NL',
        sourceType: 'catalog',
        network: 'Eurofiber',
        status: 'failed',
        attempts: 3,
        errorCode: 'TIMEOUT',
        errorMessage: 'no answer within 10 s',
        productCount: 0,
      },
      expect.objectContaining({ availabilityRequestId: 'avr_a1', sourceId: 'src_kpn_wba', productCount: 5 }),
      expect.objectContaining({ availabilityRequestId: 'avr_b3', sourceId: 'src_kpn_wba', productCount: 2 }),
      expect.objectContaining({
        availabilityRequestId: 'avr_a1',
        sourceId: 'src_kpn_glas',
        status: 'running',
      }),
      expect.objectContaining({ availabilityRequestId: 'avr_a1', sourceId: 'src_lc', network: 'eurofiber' }),
    ]);
    expect(outcomes).toEqual(
      await sqliteQueries.listSourceOutcomes(lite, 'ins_a', ['avr_b3', 'avr_a1', 'avr_f7']),
    );
    expect(await pgQueries.listSourceOutcomes(db, 'ins_b', ['avr_a1'])).toEqual([]);
    expect(await pgQueries.listSourceOutcomes(db, 'ins_a', [])).toEqual([]);

    const products = await pgQueries.listProductsOfRequests(db, 'ins_a', ['avr_a1', 'avr_b3']);
    expect(products.map((row) => row.id)).toEqual([
      'prd_k',
      'prd_o',
      'prd_m',
      'prd_Z',
      'prd_a',
      'prd_n',
      'prd_l',
    ]);
    expect(products[0]).toEqual(product('prd_k', 'avr_a1', 1_000_001, 'KPN', { technologyType: 'FTTB' }));
    expect(products).toEqual(await sqliteQueries.listProductsOfRequests(lite, 'ins_a', ['avr_a1', 'avr_b3']));
    expect(await pgQueries.listProductsOfRequests(db, 'ins_b', ['avr_a1'])).toEqual([]);
    expect(await pgQueries.listProductsOfRequests(db, 'ins_a', [])).toEqual([]);
  });
});
