/**
 * Shared by the availability-request tests of the PostgreSQL store (`availability-requests`,
 * `insert-availability-requests`, `request-details`): the rows both stores are seeded with, and
 * {@link openRequestStores}, which opens the two stores seeded alike.
 */
import type { PgTable } from 'drizzle-orm/pg-core';
import type { SQLiteTable } from 'drizzle-orm/sqlite-core';
import * as pgSchema from '../../../src/db/postgres/schema/index.js';
import type { StoredFilters } from '../../../src/db/rows.js';
import * as sqliteSchema from '../../../src/db/sqlite/schema/index.js';
import { openTwinStores, type TwinStores } from './twin-stores.js';

const T0 = new Date('2026-10-30T08:00:00.000Z');
export const T1 = new Date('2026-11-02T09:30:00.123Z');
export const T2 = new Date('2026-11-20T12:00:00.456Z');
export const NOW = new Date('2026-11-25T10:00:00.789Z');
export const MONTH_START = new Date('2026-11-01T00:00:00.000Z');
const stamps = (at: Date) => ({ createdAt: at, updatedAt: at });
export const noFilters: StoredFilters = {
  bandwidths: [],
  networks: [],
  contractTerms: [],
  connectionTypes: [],
  technologyTypes: [],
};

const address = (id: string, instanceId: string, street: string, at: Date) => ({
  id,
  instanceId,
  inputKind: 'fields' as const,
  street,
  city: 'Amsterdam',
  houseNumber: '1',
  houseNumberAddition: '',
  postalCode: '1016XA',
  countryCode: 'NL',
  continentCode: 'EU',
  latitude: 52.37,
  longitude: 4.89,
  coordinatesPrecision: 'address' as const,
  ...stamps(at),
});
const request = (id: string, instanceId: string, customerId: string | null, at: Date, sourcesTotal = 0) => ({
  id,
  instanceId,
  addressId: `adr_${id}`,
  createdByUserId: 'usr_a',
  customerId,
  projectId: null,
  pricePlanId: instanceId === 'ins_a' ? 'ppl_a' : 'ppl_b',
  filters: { ...noFilters, networks: [id] },
  status: sourcesTotal === 0 ? ('completed' as const) : ('pending' as const),
  sourcesTotal,
  sourcesFinished: 0,
  ...stamps(at),
});
const customer = (id: string, sequence: number, limit: number | null) => ({
  id,
  instanceId: 'ins_a',
  autoSequence: sequence,
  name: id,
  nameFolded: id,
  monthlyAvailabilityRequestLimit: limit,
  pricePlanId: 'ppl_a',
  accountManagerUserId: 'usr_a',
  ...stamps(T0),
});
const source = (id: string, network: string, name: string) => ({
  id,
  instanceId: 'ins_a',
  key: id,
  name,
  network,
  type: 'catalog' as const,
  countryCodes: ['NL'],
  ...stamps(T0),
});
const task = (id: number, availabilityRequestId: string, sourceId: string, status: string, attempts = 0) => ({
  id,
  instanceId: 'ins_a',
  availabilityRequestId,
  sourceId,
  status,
  attempts,
  availableAt: T1,
  errorCode: status === 'failed' ? 'TIMEOUT' : null,
  errorMessage: status === 'failed' ? 'no answer within 10 s' : null,
  ...stamps(T1),
});
export const product = (
  id: string,
  requestId: string,
  taskId: number,
  network: string,
  more: object = {},
) => ({
  id,
  instanceId: 'ins_a',
  availabilityRequestId: requestId,
  gatheringTaskId: taskId,
  sourceId: 'src_kpn_wba',
  network,
  technologyType: 'FTTH',
  connectionType: 'business',
  downloadKbps: 100_000,
  uploadKbps: 100_000,
  contractTermMonths: 12,
  purchaseMrcMinor: 1000,
  purchaseNrcMinor: 0,
  mrcMinor: 1250,
  nrcMinor: 0,
  currency: 'EUR',
  orderTerms: null,
  createdAt: T1,
  ...more,
});

// Ids and names whose bytewise order differs from a linguistic one (`Z` < `_` < `a` in bytes; en-US puts
// `a` before `Z` and `eurofiber` before `Eurofiber`). Seeded task ids stay far above the identity's range.
const seededRequests = [
  request('avr_a1', 'ins_a', 'cus_a', T1, 4),
  request('avr_Z9', 'ins_a', null, T1),
  request('avr_b3', 'ins_a', 'cus_b', T1, 1),
  request('avr_B2', 'ins_a', 'cus_a', T1),
  request('avr_c4', 'ins_a', 'cus_a', T0),
  request('avr_d5', 'ins_a', 'cus_b', T2),
  request('avr_e6', 'ins_a', 'cus_c', T2),
  request('avr_f7', 'ins_b', null, T2),
];
const fixtures: [PgTable, SQLiteTable, object[]][] = [
  [
    pgSchema.instances,
    sqliteSchema.instances,
    [
      { id: 'ins_a', name: 'A', code: 'AAA', ...stamps(T0) },
      { id: 'ins_b', name: 'B', code: 'BBB', ...stamps(T0) },
    ],
  ],
  [
    pgSchema.users,
    sqliteSchema.users,
    [
      {
        id: 'usr_a',
        instanceId: 'ins_a',
        email: 'a@a.example',
        firstName: 'A',
        lastName: 'A',
        ...stamps(T0),
      },
    ],
  ],
  [
    pgSchema.pricePlans,
    sqliteSchema.pricePlans,
    [
      {
        id: 'ppl_a',
        instanceId: 'ins_a',
        name: 'Default',
        isDefault: true,
        mrcMarkupBp: 2500,
        nrcMarkupBp: 0,
        ...stamps(T0),
      },
      {
        id: 'ppl_b',
        instanceId: 'ins_b',
        name: 'Default',
        isDefault: true,
        mrcMarkupBp: 2500,
        nrcMarkupBp: 0,
        ...stamps(T0),
      },
    ],
  ],
  [
    pgSchema.customers,
    sqliteSchema.customers,
    [
      customer('cus_a', 1, 3),
      customer('cus_b', 2, null),
      customer('cus_c', 3, null),
      customer('cus_limited', 4, 50),
      customer('cus_x', 5, 30),
      customer('cus_y', 6, 30),
    ],
  ],
  [
    pgSchema.sources,
    sqliteSchema.sources,
    [
      source('src_kpn_wba', 'KPN', 'KPN WBA'),
      source('src_ef', 'Eurofiber', 'Eurofiber NL'),
      source('src_lc', 'eurofiber', 'alpha'),
      source('src_kpn_glas', 'KPN', 'KPN glas'),
    ],
  ],
  [
    pgSchema.addresses,
    sqliteSchema.addresses,
    seededRequests.map((r) => address(r.addressId, r.instanceId, `Street ${r.id}`, r.createdAt)),
  ],
  [pgSchema.availabilityRequests, sqliteSchema.availabilityRequests, seededRequests],
  [
    pgSchema.gatheringTasks,
    sqliteSchema.gatheringTasks,
    [
      task(1_000_001, 'avr_a1', 'src_kpn_wba', 'succeeded', 1),
      task(1_000_002, 'avr_a1', 'src_ef', 'failed', 3),
      task(1_000_003, 'avr_a1', 'src_lc', 'queued'),
      task(1_000_004, 'avr_a1', 'src_kpn_glas', 'running', 1),
      task(1_000_005, 'avr_b3', 'src_kpn_wba', 'succeeded', 1),
    ],
  ],
  [
    pgSchema.availabilityRequestProducts,
    sqliteSchema.availabilityRequestProducts,
    [
      product('prd_a', 'avr_a1', 1_000_001, 'KPN'),
      product('prd_Z', 'avr_a1', 1_000_001, 'KPN'),
      product('prd_m', 'avr_a1', 1_000_001, 'KPN', { downloadKbps: 50_000 }),
      product('prd_k', 'avr_a1', 1_000_001, 'KPN', { technologyType: 'FTTB' }),
      product('prd_l', 'avr_a1', 1_000_001, 'kpn'),
      product('prd_n', 'avr_b3', 1_000_005, 'KPN', { contractTermMonths: 36 }),
      product('prd_o', 'avr_b3', 1_000_005, 'KPN', { connectionType: 'Business' }),
    ],
  ],
];

/**
 * A fresh PostgreSQL database with a linguistic default collation (a pool of 20), migrated, and an
 * in-memory SQLite database, both seeded with the same rows.
 */
export function openRequestStores(): Promise<TwinStores> {
  return openTwinStores(20, async ({ db, lite }) => {
    for (const [pgTable, sqliteTable, rows] of fixtures) {
      await db.insert(pgTable).values(rows as never);
      await lite.insert(sqliteTable).values(rows as never);
    }
  });
}
