import type pg from 'pg';
import { afterAll, beforeAll, beforeEach, describe, expect, inject, it, vi } from 'vitest';
import { type PostgresDb, postgresDb } from '../../../src/db/postgres/client.js';
import { migratePostgres } from '../../../src/db/postgres/migrate.js';
import { openPostgresPool } from '../../../src/db/postgres/pool.js';
import * as pgQueries from '../../../src/db/postgres/queries/catalog.js';
import * as pgSchema from '../../../src/db/postgres/schema/index.js';
import type { NewSource } from '../../../src/db/rows.js';
import { openDatabase, type SqliteDb } from '../../../src/db/sqlite/client.js';
import * as sqliteQueries from '../../../src/db/sqlite/queries/catalog.js';
import * as sqliteSchema from '../../../src/db/sqlite/schema/index.js';
import type { CatalogFile } from '../../../src/gathering/sources/catalog-file.js';
import { createLinguisticDatabase } from '../../helpers/postgres-server.js';

// Deterministic, ascending ids (reset before each twin call), so both stores' results compare equal.
const ids = vi.hoisted(() => ({ next: 0 }));
vi.mock('../../../src/ids.js', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../../src/ids.js')>();
  return {
    ...original,
    newId: (kind: keyof typeof original.idPrefixes) =>
      `${original.idPrefixes[kind]}_${String(++ids.next).padStart(6, '0')}`,
  };
});

const T0 = new Date('2026-11-01T08:00:00.000Z');
const T1 = new Date('2026-11-25T10:00:00.789Z');

const offer = (
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
const catalog: CatalogFile = {
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
const secondCatalog: CatalogFile = {
  country_code: 'NL',
  currency: 'EUR',
  sources: [{ key: 'west-net', name: 'West', network: 'WestNet', latency_ms: { min: 0, max: 0 } }],
  areas: [{ key: 'west', name: 'West', postal_code_ranges: [['1051', '1069']], cities: ['AMSTERDAM'] }],
  offers: [offer('west-net', ['west'], 'FTTH', 'ETH_A', 50_000, { '12': { mrc: 700, nrc: 0 } })],
};

const httpSource: NewSource = {
  key: 'supplier-x',
  name: 'Supplier X',
  network: 'Xnet',
  type: 'http',
  countryCodes: ['BE', 'NL'],
  enabled: true,
  endpointUrl: 'https://supplier.example/availability',
  credentials: 'secret',
  timeoutMs: 5000,
  concurrency: 2,
};

describe('the catalogue on PostgreSQL', () => {
  let database: { url: string; drop(): Promise<void> };
  let pool: pg.Pool;
  let db: PostgresDb;
  let lite: SqliteDb;
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
  async function both<R>(
    call: (queries: typeof pgQueries, handle: PostgresDb) => Promise<R>,
    liteCall: (queries: typeof sqliteQueries, handle: SqliteDb) => Promise<R>,
  ): Promise<[R, R]> {
    const start = ids.next;
    const onPostgres = await call(pgQueries, db);
    ids.next = start;
    const onSqlite = await liteCall(sqliteQueries, lite);
    return [onPostgres, onSqlite];
  }
  const sourceIdOf = async (instanceId: string, key: string) =>
    (await pgQueries.listSources(db, instanceId)).find((source) => source.key === key)?.id as string;

  beforeAll(async () => {
    database = await createLinguisticDatabase(inject('postgresAdminUrl'));
    pool = openPostgresPool(database.url, 5);
    await migratePostgres(pool);
    db = postgresDb(pool);
    lite = openDatabase(':memory:');
    const instances = [
      { id: 'ins_a', name: 'A', code: 'AAA', createdAt: T0, updatedAt: T0 },
      { id: 'ins_b', name: 'B', code: 'BBB', createdAt: T0, updatedAt: T0 },
    ];
    await db.insert(pgSchema.instances).values(instances);
    await lite.insert(sqliteSchema.instances).values(instances);
  });

  beforeEach(() => {
    ids.next = 1000 * Math.ceil((ids.next + 1) / 1000);
  });

  afterAll(async () => {
    await pool?.end();
    lite?.$client.close();
    await database?.drop();
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

  it('when sources are listed, then they come by network then name in byte order, ties by key, as on SQLite', async () => {
    const [all, liteAll] = await both(
      (q, h) => q.listSources(h, 'ins_a'),
      (q, h) => q.listSources(h, 'ins_a'),
    );
    expect(all.map((source) => source.key)).toEqual(['ef-nl', 'a-twin', 'kpn-wba', 'west-net', 'lc']);
    expect(all).toEqual(liteAll);
    expect(all[2]).toEqual({
      id: await sourceIdOf('ins_a', 'kpn-wba'),
      instanceId: 'ins_a',
      key: 'kpn-wba',
      name: 'KPN WBA',
      network: 'KPN',
      type: 'catalog',
      countryCodes: ['NL'],
      enabled: true,
      latencyMinMs: 10,
      latencyMaxMs: 20,
      endpointUrl: null,
      credentials: null,
      settings: null,
      hubListeners: null,
      timeoutMs: 10_000,
      concurrency: 4,
      createdAt: T0,
      updatedAt: T0,
    });
  });

  it('when a source is registered, then it is returned as stored, and a taken key throws', async () => {
    const [row, liteRow] = await both(
      (q, h) => q.insertSource(h, 'ins_a', httpSource, T1),
      (q, h) => q.insertSource(h, 'ins_a', httpSource, T1),
    );
    expect(row).toEqual(liteRow);
    expect(row).toEqual({
      ...httpSource,
      id: row.id,
      instanceId: 'ins_a',
      latencyMinMs: 0,
      latencyMaxMs: 0,
      settings: null,
      hubListeners: null,
      createdAt: T1,
      updatedAt: T1,
    });
    expect((await pgQueries.listSources(db, 'ins_a')).find((source) => source.id === row.id)).toEqual(row);
    await expect(pgQueries.insertSource(db, 'ins_a', httpSource, T1)).rejects.toMatchObject({
      cause: { code: '23505' },
    });
  });

  it('when a source is disabled or enabled, then it is returned changed, and nothing for another instance', async () => {
    const id = await sourceIdOf('ins_a', 'lc');
    const [disabled, liteDisabled] = await both(
      (q, h) => q.setSourceEnabled(h, 'ins_a', id, false, T1),
      (q, h) => q.setSourceEnabled(h, 'ins_a', id, false, T1),
    );
    expect(disabled).toMatchObject({ id, key: 'lc', enabled: false, updatedAt: T1, createdAt: T0 });
    expect(disabled).toEqual(liteDisabled);
    expect(await pgQueries.setSourceEnabled(db, 'ins_b', id, true, T1)).toBeUndefined();
    const [enabled] = await both(
      (q, h) => q.listEnabledSources(h, 'ins_a', 'NL'),
      (q, h) => q.listEnabledSources(h, 'ins_a', 'NL'),
    );
    expect(enabled.map((source) => source.key)).toEqual([
      'ef-nl',
      'a-twin',
      'kpn-wba',
      'west-net',
      'supplier-x',
    ]);
    expect((await pgQueries.listEnabledSources(db, 'ins_a', 'BE')).map((source) => source.key)).toEqual([
      'supplier-x',
    ]);
    expect(await pgQueries.listEnabledSources(db, 'ins_a', 'DE')).toEqual([]);
    expect(await pgQueries.setSourceEnabled(db, 'ins_a', id, true, T1)).toMatchObject({ enabled: true });
    await sqliteQueries.setSourceEnabled(lite, 'ins_a', id, true, T1);
    const [again, liteAgain] = await both(
      (q, h) => q.listEnabledSources(h, 'ins_a', 'NL'),
      (q, h) => q.listEnabledSources(h, 'ins_a', 'NL'),
    );
    expect(again.map((source) => source.key)).toEqual([
      'ef-nl',
      'a-twin',
      'kpn-wba',
      'west-net',
      'supplier-x',
      'lc',
    ]);
    expect(again).toEqual(liteAgain);
  });

  it('when value sets are read, then they are sorted in byte order, frozen, kept per list of sources', async () => {
    const kpn = await sourceIdOf('ins_a', 'kpn-wba');
    const ef = await sourceIdOf('ins_a', 'ef-nl');
    const [values, liteValues] = await both(
      (q, h) => q.catalogValueSets(h, [kpn, ef]),
      (q, h) => q.catalogValueSets(h, [kpn, ef]),
    );
    expect(values).toEqual({
      technologyTypes: ['FTTB', 'FTTH', 'F_X'],
      connectionTypes: ['DARK_FIBER', 'ETHB', 'ETH_A'],
      bandwidths: [
        { download: 20_000, upload: 2000 },
        { download: 100_000, upload: 10_000 },
        { download: 1_000_000, upload: 100_000 },
        { download: 10_000_000, upload: 1_000_000 },
      ],
      contractTerms: [12, 24, 36, 60],
    });
    expect(values).toEqual(liteValues);
    expect(Object.isFrozen(values) && Object.isFrozen(values.bandwidths[0])).toBe(true);
    expect(await pgQueries.catalogValueSets(db, [kpn, ef])).toBe(values);
    expect(await pgQueries.catalogValueSets(db, [ef])).toEqual({
      technologyTypes: ['FTTH'],
      connectionTypes: ['DARK_FIBER'],
      bandwidths: [{ download: 10_000_000, upload: 1_000_000 }],
      contractTerms: [36],
    });
    const none = await pgQueries.catalogValueSets(db, []);
    expect(none).toEqual({ technologyTypes: [], connectionTypes: [], bandwidths: [], contractTerms: [] });
    expect(await pgQueries.catalogValueSets(db, ['src_unknown'])).toEqual(none);
  });

  it('when areas cover an address, then postal codes match by byte-order prefix range and cities by first area', async () => {
    const cases = [
      { countryCode: 'NL', postalCode: '1072XY', city: 'Amsterdam' },
      { countryCode: 'NL', postalCode: '1016XA', city: '' },
      { countryCode: 'NL', postalCode: 'AB5CD', city: '' },
      { countryCode: 'NL', postalCode: 'ab5cd', city: '' },
      { countryCode: 'NL', postalCode: '9999ZZ', city: 'Amsterdam' },
      { countryCode: 'BE', postalCode: '1072XY', city: '' },
      { countryCode: 'NL', postalCode: '', city: 'AmsterDAM' },
      { countryCode: 'NL', postalCode: '', city: 'Diemen' },
      { countryCode: 'NL', postalCode: '', city: 'Utrecht' },
      { countryCode: 'NL', postalCode: '', city: '' },
    ];
    const areaKeys = new Map(
      (await db.select().from(pgSchema.catalogAreas)).map((area) => [
        area.id,
        `${area.instanceId}/${area.key}`,
      ]),
    );
    const found: string[][] = [];
    for (const address of cases) {
      const [areas, liteAreas] = await both(
        (q, h) => q.coveringAreaIds(h, 'ins_a', address),
        (q, h) => q.coveringAreaIds(h, 'ins_a', address),
      );
      expect(areas).toEqual(liteAreas);
      found.push(areas.map((id) => areaKeys.get(id) as string));
    }
    expect(found).toEqual([
      ['ins_a/centrum', 'ins_a/zuid'],
      ['ins_a/centrum'],
      ['ins_a/letters'],
      [],
      [],
      [],
      ['ins_a/zuid'],
      ['ins_a/centrum'],
      [],
      [],
    ]);
  });

  it('when a source’s offers are listed, then they come sorted, ties nationwide first, as on SQLite', async () => {
    const kpn = await sourceIdOf('ins_a', 'kpn-wba');
    const areas = await pgQueries.coveringAreaIds(db, 'ins_a', {
      countryCode: 'NL',
      postalCode: '1072XY',
      city: '',
    });
    const [offers, liteOffers] = await both(
      (q, h) => q.listSourceOffers(h, kpn, areas),
      (q, h) => q.listSourceOffers(h, kpn, areas),
    );
    expect(offers).toEqual(liteOffers);
    const areaKey = new Map([
      [areas[0], 'centrum'],
      [areas[1], 'zuid'],
    ]);
    expect(
      offers.map((o) => [
        o.technologyType,
        o.connectionType,
        o.contractTermMonths,
        o.purchaseMrcMinor,
        areaKey.get(o.areaId ?? '') ?? '*',
      ]),
    ).toEqual([
      ['FTTB', 'ETHB', 60, 5000, '*'],
      ['FTTH', 'ETHB', 12, 1100, 'centrum'],
      ['FTTH', 'ETH_A', 12, 1000, '*'],
      ['FTTH', 'ETH_A', 12, 1200, 'zuid'],
      ['FTTH', 'ETH_A', 12, 1200, 'centrum'],
      ['FTTH', 'ETH_A', 36, 900, '*'],
    ]);
    expect(offers[0]).toEqual({
      id: offers[0]?.id,
      instanceId: 'ins_a',
      sourceId: kpn,
      areaId: null,
      technologyType: 'FTTB',
      connectionType: 'ETHB',
      downloadKbps: 1_000_000,
      uploadKbps: 100_000,
      contractTermMonths: 60,
      purchaseMrcMinor: 5000,
      purchaseNrcMinor: 10_000,
      currency: 'EUR',
      createdAt: T0,
    });
    const [nationwide, liteNationwide] = await both(
      (q, h) => q.listSourceOffers(h, kpn, []),
      (q, h) => q.listSourceOffers(h, kpn, []),
    );
    expect(nationwide.map((o) => o.purchaseMrcMinor)).toEqual([5000, 1000, 900]);
    expect(nationwide).toEqual(liteNationwide);
  });
});
