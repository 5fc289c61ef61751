import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import type { PostgresDb } from '../../../src/db/postgres/client.js';
import * as pgQueries from '../../../src/db/postgres/queries/catalog.js';
import * as pgSchema from '../../../src/db/postgres/schema/index.js';
import {
  type CatalogStores,
  importCatalogs,
  nextThousand,
  openCatalogStores,
  T0,
} from './catalog-fixtures.js';
import { ids } from './sequential-ids.js';

vi.mock('../../../src/ids.js', () => import('./sequential-ids.js'));

describe('the catalogue on PostgreSQL', () => {
  let stores: CatalogStores;
  let db: PostgresDb;
  let both: CatalogStores['both'];
  let sourceIdOf: CatalogStores['sourceIdOf'];

  beforeAll(async () => {
    stores = await openCatalogStores(ids);
    ({ db, both, sourceIdOf } = stores);
    // What the import test of catalog.test.ts leaves behind: its catalogues, imported as it imports them.
    await importCatalogs(stores);
  });

  beforeEach(() => nextThousand(ids));

  afterAll(async () => {
    await stores?.close();
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
