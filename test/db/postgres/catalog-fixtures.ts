import type { PostgresDb } from '../../../src/db/postgres/client.js';
import * as pgQueries from '../../../src/db/postgres/queries/catalog.js';
import * as pgSchema from '../../../src/db/postgres/schema/index.js';
import type { SqliteDb } from '../../../src/db/sqlite/client.js';
import * as sqliteQueries from '../../../src/db/sqlite/queries/catalog.js';
import * as sqliteSchema from '../../../src/db/sqlite/schema/index.js';
import type { CatalogFile } from '../../../src/gathering/sources/catalog-file.js';
import { type IdCounter, openTwinStores, withSameIds } from './twin-stores.js';

export const T0 = new Date('2026-11-01T08:00:00.000Z');
export const T1 = new Date('2026-11-25T10:00:00.789Z');

export const offer = (
  source: string,
  areas: '*' | string[],
  technology: string,
  connection: string,
  download: number,
  prices: Record<string, { mrc: number; nrc: number }>,
) => ({
  source,
  areas,
  technology_type: technology,
  connection_type: connection,
  bandwidth: { download, upload: download / 10 },
  prices,
});

// Texts whose byte order differs from en-US (`_` after letters in bytes, before them in en-US; `eurofiber`
// after `KPN` in bytes), ties on network and name, and offers that tie on every ordered column.
export const catalog: CatalogFile = {
  country_code: 'NL',
  currency: 'EUR',
  sources: [
    { key: 'kpn-wba', name: 'KPN WBA', network: 'KPN', latency_ms: { min: 10, max: 20 } },
    { key: 'ef-nl', name: 'Eurofiber NL', network: 'Eurofiber', latency_ms: { min: 0, max: 0 } },
    { key: 'lc', name: 'alpha', network: 'eurofiber', latency_ms: { min: 5, max: 5 } },
    { key: 'a-twin', name: 'KPN WBA', network: 'KPN', latency_ms: { min: 1, max: 2 } },
  ],
  areas: [
    { key: 'zuid', name: 'Zuid', postal_code_ranges: [['1071', '1083']], cities: ['Amsterdam'] },
    {
      key: 'centrum',
      name: 'Centrum',
      postal_code_ranges: [
        ['1011', '1018'],
        ['1070', '1075'],
      ],
      cities: ['Amsterdam', 'Diemen'],
    },
    { key: 'letters', name: 'Letters', postal_code_ranges: [['AB1', 'AB9']], cities: ['Weesp'] },
  ],
  offers: [
    offer('kpn-wba', '*', 'FTTH', 'ETH_A', 100_000, {
      '12': { mrc: 1000, nrc: 0 },
      '36': { mrc: 900, nrc: 0 },
    }),
    offer('kpn-wba', ['centrum'], 'FTTH', 'ETHB', 100_000, { '12': { mrc: 1100, nrc: 50 } }),
    offer('kpn-wba', ['zuid', 'centrum'], 'FTTH', 'ETH_A', 100_000, { '12': { mrc: 1200, nrc: 0 } }),
    offer('kpn-wba', ['letters'], 'F_X', 'ETHB', 20_000, { '24': { mrc: 500, nrc: 0 } }),
    offer('kpn-wba', '*', 'FTTB', 'ETHB', 1_000_000, { '60': { mrc: 5000, nrc: 10_000 } }),
    offer('ef-nl', '*', 'FTTH', 'DARK_FIBER', 10_000_000, { '36': { mrc: 20_000, nrc: 0 } }),
  ],
};

/** A second catalogue for the same instance: its first area also lists Amsterdam (a tie on position). */
export const secondCatalog: CatalogFile = {
  country_code: 'NL',
  currency: 'EUR',
  sources: [{ key: 'west-net', name: 'West', network: 'WestNet', latency_ms: { min: 0, max: 0 } }],
  areas: [{ key: 'west', name: 'West', postal_code_ranges: [['1051', '1069']], cities: ['AMSTERDAM'] }],
  offers: [offer('west-net', ['west'], 'FTTH', 'ETH_A', 50_000, { '12': { mrc: 700, nrc: 0 } })],
};

/** Moves a test file's id counter on to the next thousand: each test's ids start afresh, still ascending. */
export const nextThousand = (ids: IdCounter) => {
  ids.next = 1000 * Math.ceil((ids.next + 1) / 1000);
};

export type CatalogStores = Awaited<ReturnType<typeof openCatalogStores>>;

/**
 * A fresh PostgreSQL database with a linguistic default collation (a pool of 5), migrated, and an in-memory
 * SQLite database, both holding instances `ins_a` and `ins_b`; and what compares them call for call.
 * `ids` is the counter of the test file's `newId` mock.
 */
export async function openCatalogStores(ids: IdCounter) {
  const { pool, db, lite, close } = await openTwinStores(5, async (stores) => {
    const instances = [
      { id: 'ins_a', name: 'A', code: 'AAA', createdAt: T0, updatedAt: T0 },
      { id: 'ins_b', name: 'B', code: 'BBB', createdAt: T0, updatedAt: T0 },
    ];
    await stores.db.insert(pgSchema.instances).values(instances);
    await stores.lite.insert(sqliteSchema.instances).values(instances);
  });

  const rowCount = async (table: string) =>
    (await pool.query(`SELECT count(*)::int AS n FROM "${table}"`)).rows[0].n as number;
  const catalogCounts = async () =>
    Object.fromEntries(
      await Promise.all(
        [
          'sources',
          'catalog_areas',
          'catalog_area_postal_code_ranges',
          'catalog_area_cities',
          'catalog_offers',
        ].map(async (table) => [table, await rowCount(table)]),
      ),
    );
  /** Calls a function on both stores with the same ids; returns [PostgreSQL's result, SQLite's]. */
  const both = <R>(
    call: (queries: typeof pgQueries, handle: PostgresDb) => Promise<R>,
    liteCall: (queries: typeof sqliteQueries, handle: SqliteDb) => Promise<R>,
  ): Promise<[R, R]> =>
    withSameIds(
      ids,
      () => call(pgQueries, db),
      () => liteCall(sqliteQueries, lite),
    );
  const sourceIdOf = async (instanceId: string, key: string) =>
    (await pgQueries.listSources(db, instanceId)).find((source) => source.key === key)?.id as string;

  return { pool, db, lite, both, catalogCounts, sourceIdOf, close };
}

/**
 * Imports into both stores what the import test of `catalog.test.ts` imports, in its order and with its
 * ids: `catalog` for `ins_a` at T0, `secondCatalog` for `ins_a` and `catalog` for `ins_b` at T1.
 */
export async function importCatalogs({ both }: CatalogStores): Promise<void> {
  await both(
    (q, h) => q.importCatalog(h, 'ins_a', catalog, T0),
    (q, h) => q.importCatalog(h, 'ins_a', catalog, T0),
  );
  await both(
    (q, h) => q.importCatalog(h, 'ins_a', secondCatalog, T1),
    (q, h) => q.importCatalog(h, 'ins_a', secondCatalog, T1),
  );
  await both(
    (q, h) => q.importCatalog(h, 'ins_b', catalog, T1),
    (q, h) => q.importCatalog(h, 'ins_b', catalog, T1),
  );
}
