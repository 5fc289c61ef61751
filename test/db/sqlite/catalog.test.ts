import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSqliteStore } from '../../../src/db/sqlite/store.js';
import type { Store } from '../../../src/db/store.js';
import type { CatalogFile } from '../../../src/gathering/sources/catalog-file.js';
import { createLogger } from '../../../src/logger.js';
import { tempSqlitePath } from '../../helpers/app.js';
import { recordStatements } from '../../helpers/store.js';

/** An NL catalogue of two sources (KPN and Eurofiber) and one area, with the given offers. */
function catalog(prefix: string, offers: CatalogFile['offers']): CatalogFile {
  return {
    country_code: 'NL',
    currency: 'EUR',
    sources: [
      { key: `${prefix}-one`, name: 'One', network: 'KPN', latency_ms: { min: 0, max: 0 } },
      { key: `${prefix}-two`, name: 'Two', network: 'Eurofiber', latency_ms: { min: 0, max: 0 } },
    ],
    areas: [{ key: `${prefix}-area`, name: 'Area', postal_code_ranges: [['1000', '1099']], cities: [] }],
    offers,
  };
}

describe('catalogValueSets', () => {
  const database = tempSqlitePath();
  let store: Store;
  let instanceId: string;

  beforeAll(async () => {
    store = await openSqliteStore(database.path, { logger: createLogger('silent') });
    instanceId = (await store.insertInstance({ name: 'Catalog B.V.', code: 'CAT', now: new Date(0) })).id;
    await store.importCatalog(
      instanceId,
      catalog('first', [
        {
          source: 'first-one',
          areas: '*',
          technology_type: 'FTTH',
          connection_type: 'FIBER',
          bandwidth: { download: 1_000_000, upload: 1_000_000 },
          prices: { '36': { mrc: 9900, nrc: 0 }, '12': { mrc: 12900, nrc: 25000 } },
        },
        {
          source: 'first-two',
          areas: ['first-area'],
          technology_type: 'VDSL',
          connection_type: 'COPPER',
          bandwidth: { download: 100_000, upload: 30_000 },
          prices: { '24': { mrc: 4900, nrc: 9900 } },
        },
        {
          source: 'first-two',
          areas: '*',
          technology_type: 'FTTH',
          connection_type: 'FIBER',
          bandwidth: { download: 1_000_000, upload: 1_000_000 },
          prices: { '36': { mrc: 8900, nrc: 0 } },
        },
      ]),
      new Date(0),
    );
  });
  afterAll(async () => {
    await store.close();
    database.remove();
  });

  it('when read twice for the same sources, then both reads give the distinct sorted values and only the first queries', async () => {
    const ids = (await store.listEnabledSources(instanceId, 'NL')).map((source) => source.id);
    const expected = {
      technologyTypes: ['FTTH', 'VDSL'],
      connectionTypes: ['COPPER', 'FIBER'],
      bandwidths: [
        { download: 100_000, upload: 30_000 },
        { download: 1_000_000, upload: 1_000_000 },
      ],
      contractTerms: [12, 24, 36],
    };

    const first = await recordStatements(store, () => store.catalogValueSets(ids));
    const second = await recordStatements(store, () => store.catalogValueSets(ids));

    expect(first.result).toEqual(expected);
    expect(first.sql).toHaveLength(4);
    expect(second.result).toBe(first.result);
    expect(second.sql).toEqual([]);
    expect(Object.isFrozen(second.result.bandwidths[0])).toBe(true);
    expect(() => (second.result.contractTerms as number[]).push(48)).toThrow(TypeError);
  });

  it('when a catalogue adds sources, then a list with them is read anew, and no sources have no values', async () => {
    const before = (await store.listEnabledSources(instanceId, 'NL')).map((source) => source.id);
    await store.catalogValueSets(before);
    await store.importCatalog(
      instanceId,
      catalog('second', [
        {
          source: 'second-one',
          areas: '*',
          technology_type: 'COAX',
          connection_type: 'CABLE',
          bandwidth: { download: 500_000, upload: 50_000 },
          prices: { '1': { mrc: 5900, nrc: 0 } },
        },
      ]),
      new Date(0),
    );
    const after = (await store.listEnabledSources(instanceId, 'NL')).map((source) => source.id);

    const values = await store.catalogValueSets(after);

    expect(after).toHaveLength(4);
    expect(values).toEqual({
      technologyTypes: ['COAX', 'FTTH', 'VDSL'],
      connectionTypes: ['CABLE', 'COPPER', 'FIBER'],
      bandwidths: [
        { download: 100_000, upload: 30_000 },
        { download: 500_000, upload: 50_000 },
        { download: 1_000_000, upload: 1_000_000 },
      ],
      contractTerms: [1, 12, 24, 36],
    });
    expect(await store.catalogValueSets([])).toEqual({
      technologyTypes: [],
      connectionTypes: [],
      bandwidths: [],
      contractTerms: [],
    });
  });
});
