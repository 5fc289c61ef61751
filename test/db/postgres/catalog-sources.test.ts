import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import type { PostgresDb } from '../../../src/db/postgres/client.js';
import * as pgQueries from '../../../src/db/postgres/queries/catalog.js';
import type { NewSource } from '../../../src/db/rows.js';
import type { SqliteDb } from '../../../src/db/sqlite/client.js';
import * as sqliteQueries from '../../../src/db/sqlite/queries/catalog.js';
import {
  type CatalogStores,
  importCatalogs,
  nextThousand,
  openCatalogStores,
  T0,
  T1,
} from './catalog-fixtures.js';
import { ids } from './sequential-ids.js';

vi.mock('../../../src/ids.js', () => import('./sequential-ids.js'));

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
  let stores: CatalogStores;
  let db: PostgresDb;
  let lite: SqliteDb;
  let both: CatalogStores['both'];
  let sourceIdOf: CatalogStores['sourceIdOf'];

  beforeAll(async () => {
    stores = await openCatalogStores(ids);
    ({ db, lite, both, sourceIdOf } = stores);
    // What the import test of catalog.test.ts leaves behind: its catalogues, imported as it imports them.
    await importCatalogs(stores);
  });

  beforeEach(() => nextThousand(ids));

  afterAll(async () => {
    await stores?.close();
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
});
