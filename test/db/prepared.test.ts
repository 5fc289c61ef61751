import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeDatabase, type Db, openDatabase } from '../../src/db/client.js';
import { preparedQuery, preparedRowInsert } from '../../src/db/prepared.js';
import { insertInstance } from '../../src/db/queries/tenancy.js';
import { addresses, instances } from '../../src/db/schema/index.js';
import { tempDatabasePath } from '../helpers/app.js';

describe('prepared statements', () => {
  const database = tempDatabasePath();
  let db: Db;
  let instanceId: string;

  beforeAll(async () => {
    db = openDatabase(database.path);
    instanceId = (await insertInstance(db, { name: 'Prepared B.V.', code: 'PRP', now: new Date(0) })).id;
  });
  afterAll(() => {
    closeDatabase(db);
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
