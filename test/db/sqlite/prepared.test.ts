import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SqliteDb } from '../../../src/db/sqlite/client.js';
import { preparedQuery, preparedRowInsert } from '../../../src/db/sqlite/prepared.js';
import { addresses, instances } from '../../../src/db/sqlite/schema/index.js';
import { openSqliteStore } from '../../../src/db/sqlite/store.js';
import type { Store } from '../../../src/db/store.js';
import { createLogger } from '../../../src/logger.js';
import { tempSqlitePath } from '../../helpers/app.js';
import { sqliteConnection } from '../../helpers/store.js';

describe('prepared statements', () => {
  const database = tempSqlitePath();
  let store: Store;
  let db: SqliteDb;
  let instanceId: string;

  beforeAll(async () => {
    store = await openSqliteStore(database.path, { logger: createLogger('silent') });
    db = sqliteConnection(store);
    instanceId = (await store.insertInstance({ name: 'Prepared B.V.', code: 'PRP', now: new Date(0) })).id;
  });
  afterAll(async () => {
    await store.close();
    database.remove();
  });

  it('when a row with a Date, nulls and text is inserted, then drizzle reads back exactly that row', () => {
    const row = {
      id: 'adr_01h455vb4pex5vsknk084sn02q',
      instanceId,
      inputKind: 'fields' as const,
      street: 'Lijnbaansgracht',
      city: 'Amsterdam',
      houseNumber: '206',
      houseNumberAddition: 'H',
      postalCode: '1016XA',
      countryCode: 'NL',
      continentCode: 'EU',
      latitude: null,
      longitude: null,
      coordinatesPrecision: null,
      createdAt: new Date('2026-11-22T10:04:50.123Z'),
      updatedAt: new Date('2026-11-22T10:04:51.456Z'),
    };

    preparedRowInsert(addresses)(db).run(row);

    expect(db.select().from(addresses).where(eq(addresses.id, row.id)).get()).toEqual(row);
  });

  it('when a row breaks a constraint, then it throws and writes nothing', () => {
    const before = db.$count(addresses);
    const orphan = {
      id: 'adr_01h455vb4pex5vsknk084sn02r',
      instanceId: 'ins_unknown',
      inputKind: 'fields' as const,
      street: '',
      city: '',
      houseNumber: '',
      houseNumberAddition: '',
      postalCode: '',
      countryCode: 'NL',
      continentCode: 'EU',
      latitude: null,
      longitude: null,
      coordinatesPrecision: null,
      createdAt: new Date(0),
      updatedAt: new Date(0),
    };

    expect(() => preparedRowInsert(addresses)(db).run(orphan)).toThrow('FOREIGN KEY constraint failed');
    expect(db.$count(addresses)).toEqual(before);
  });

  it('when a prepared query is asked for twice on one database, then it is built once', () => {
    let builds = 0;
    const allInstances = preparedQuery((handle) => {
      builds += 1;
      return handle.select().from(instances).prepare();
    });

    const first = allInstances(db);
    const second = allInstances(db);

    expect(second).toBe(first);
    expect(builds).toBe(1);
    expect(first.all().map((instance) => instance.code)).toEqual(['PRP']);
  });
});
