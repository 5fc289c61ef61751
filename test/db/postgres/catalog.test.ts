import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import type { PostgresDb } from '../../../src/db/postgres/client.js';
import * as pgQueries from '../../../src/db/postgres/queries/catalog.js';
import * as pgSchema from '../../../src/db/postgres/schema/index.js';
import type { SqliteDb } from '../../../src/db/sqlite/client.js';
import * as sqliteQueries from '../../../src/db/sqlite/queries/catalog.js';
import * as sqliteSchema from '../../../src/db/sqlite/schema/index.js';
import type { CatalogFile } from '../../../src/gathering/sources/catalog-file.js';
import {
  type CatalogStores,
  catalog,
  nextThousand,
  offer,
  openCatalogStores,
  secondCatalog,
  T0,
  T1,
} from './catalog-fixtures.js';
import { ids } from './sequential-ids.js';

vi.mock('../../../src/ids.js', () => import('./sequential-ids.js'));

describe('the catalogue on PostgreSQL', () => {
  let stores: CatalogStores;
  let db: PostgresDb;
  let lite: SqliteDb;
  let both: CatalogStores['both'];
  let catalogCounts: CatalogStores['catalogCounts'];

  beforeAll(async () => {
    stores = await openCatalogStores(ids);
    ({ db, lite, both, catalogCounts } = stores);
  });

  beforeEach(() => nextThousand(ids));

  afterAll(async () => {
    await stores?.close();
  });

  it('when catalogues are imported, then sources, areas and offers are written as on SQLite', async () => {
    const [counts, liteCounts] = await both(
      (q, h) => q.importCatalog(h, 'ins_a', catalog, T0),
      (q, h) => q.importCatalog(h, 'ins_a', catalog, T0),
    );
    expect(counts).toEqual({ sources: 4, areas: 3, offers: 8 });
    expect(liteCounts).toEqual(counts);
    await both(
      (q, h) => q.importCatalog(h, 'ins_a', secondCatalog, T1),
      (q, h) => q.importCatalog(h, 'ins_a', secondCatalog, T1),
    );
    await both(
      (q, h) => q.importCatalog(h, 'ins_b', catalog, T1),
      (q, h) => q.importCatalog(h, 'ins_b', catalog, T1),
    );
    expect(await db.select().from(pgSchema.sources).orderBy(pgSchema.sources.id)).toEqual(
      lite.select().from(sqliteSchema.sources).orderBy(sqliteSchema.sources.id).all(),
    );
    expect(await db.select().from(pgSchema.catalogAreas).orderBy(pgSchema.catalogAreas.id)).toEqual(
      lite.select().from(sqliteSchema.catalogAreas).orderBy(sqliteSchema.catalogAreas.id).all(),
    );
    expect(await db.select().from(pgSchema.catalogOffers).orderBy(pgSchema.catalogOffers.id)).toEqual(
      lite.select().from(sqliteSchema.catalogOffers).orderBy(sqliteSchema.catalogOffers.id).all(),
    );
    const ranges = await db
      .select()
      .from(pgSchema.catalogAreaPostalCodeRanges)
      .orderBy(pgSchema.catalogAreaPostalCodeRanges.id);
    expect(ranges).toEqual(lite.select().from(sqliteSchema.catalogAreaPostalCodeRanges).all());
    const cities = await db.select().from(pgSchema.catalogAreaCities).orderBy(pgSchema.catalogAreaCities.id);
    expect(cities.map((city) => city.cityLower)).toEqual([
      'amsterdam',
      'amsterdam',
      'diemen',
      'weesp',
      'amsterdam',
      'amsterdam',
      'amsterdam',
      'diemen',
      'weesp',
    ]);
    expect(cities).toEqual(lite.select().from(sqliteSchema.catalogAreaCities).all());
  });

  it('when an import repeats a key or names an unknown source, then it throws and writes nothing', async () => {
    const before = await catalogCounts();
    await expect(pgQueries.importCatalog(db, 'ins_a', catalog, T1)).rejects.toMatchObject({
      cause: { code: '23505' },
    });
    const unknown: CatalogFile = {
      ...secondCatalog,
      sources: [{ key: 'fresh', name: 'Fresh', network: 'Fresh', latency_ms: { min: 0, max: 0 } }],
      areas: [
        { key: 'fresh-area', name: 'Fresh', postal_code_ranges: [['2000', '2999']], cities: ['Haarlem'] },
      ],
      offers: [offer('nope', '*', 'FTTH', 'ETH_A', 1000, { '12': { mrc: 1, nrc: 0 } })],
    };
    await expect(pgQueries.importCatalog(db, 'ins_a', unknown, T1)).rejects.toThrow(
      new Error('unknown source nope'),
    );
    await expect(sqliteQueries.importCatalog(lite, 'ins_a', unknown, T1)).rejects.toThrow(
      new Error('unknown source nope'),
    );
    expect(await catalogCounts()).toEqual(before);
  });
});
