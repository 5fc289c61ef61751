import { eq, getTableColumns, sql } from 'drizzle-orm';
import type { SQLiteTable } from 'drizzle-orm/sqlite-core';
import type { PricePlanWithRules, StoredFilters } from '../../src/db/rows.js';
import type { SqliteDb } from '../../src/db/sqlite/client.js';
import {
  addresses,
  availabilityRequestProducts,
  availabilityRequests,
  catalogAreas,
  catalogOffers,
  customerFinancialDetails,
  customers,
  gatheringTasks,
  sources,
} from '../../src/db/sqlite/schema/index.js';
import { salePrices } from '../../src/gathering/pricing.js';
import { geocodeCity } from '../../src/geo/index.js';
import { type IdKind, idPrefixes } from '../../src/ids.js';
import { foldName } from '../../src/resolvers/customer-input.js';
import {
  companyName,
  demoCatalogAreas,
  dutchAddress,
  dutchIban,
  dutchRegions,
  dutchVatNumber,
  type Random,
  slug,
} from './nl-data.js';
import { typeIdAt } from './typeid.js';

/*
 * Bulk row generation for the benchmark seed: rows shaped exactly as the service's own inserts write them
 * (`insertAvailabilityRequests`, the gathering worker, `insertCustomer`), written with drizzle in
 * multi-row statements inside one transaction per table group.
 */

/**
 * A TypeID of `kind` whose UUIDv7 carries `at` as its timestamp, so seeded ids sort like the creation
 * times they claim (as `newId` ids do for rows created now).
 */
export function idAt(kind: IdKind, at: number): string {
  return typeIdAt(idPrefixes[kind], at);
}

/**
 * A bulk writer for one table: rows go in multi-row INSERTs of `chunk` rows. drizzle builds the statement
 * once (from the schema table, with placeholders) and maps every value with the columns' own encoders
 * (dates to ms, JSON to text, booleans to 0/1); better-sqlite3 runs the prepared statement with positional
 * parameters, so no SQL is rebuilt per chunk. A last partial chunk goes through the query builder.
 */
function bulkInsert<T extends SQLiteTable>(
  db: SqliteDb,
  table: T,
  chunk = 500,
): (rows: T['$inferInsert'][]) => void {
  const columns = Object.entries(getTableColumns(table));
  const placeholders = Array.from({ length: chunk }, (_, row) =>
    Object.fromEntries(columns.map(([key]) => [key, sql.placeholder(`${row}:${key}`)])),
  );
  // Placeholder rows stand for any row of the table.
  const query = db
    .insert(table)
    .values(placeholders as unknown as T['$inferInsert'][])
    .toSQL();
  const expected = placeholders.flatMap((row) => Object.values(row).map((placeholder) => placeholder.name));
  const actual = query.params.map((param) => (param as { value?: { name?: string } }).value?.name);
  if (actual.join() !== expected.join()) throw new Error('unexpected parameter order in a bulk insert');
  const statement = db.$client.prepare(query.sql);
  const params: unknown[] = new Array(chunk * columns.length);
  return (rows) => {
    let start = 0;
    for (; start + chunk <= rows.length; start += chunk) {
      let at = 0;
      for (let row = start; row < start + chunk; row++) {
        const values = rows[row] as Record<string, unknown>;
        for (const [key, column] of columns) {
          const value = values[key];
          params[at++] = value === null || value === undefined ? null : column.mapToDriverValue(value);
        }
      }
      statement.run(params);
    }
    if (start < rows.length) db.insert(table).values(rows.slice(start)).run();
  };
}

type Offer = typeof catalogOffers.$inferSelect;

const noFilters: StoredFilters = {
  bandwidths: [],
  networks: [],
  contractTerms: [],
  connectionTypes: [],
  technologyTypes: [],
};

/** Filters as resellers send them: most requests without any, some narrowed by term, network or type. */
function randomFilters(random: Random): StoredFilters {
  const roll = random.next();
  if (roll < 0.72) return noFilters;
  if (roll < 0.84) return { ...noFilters, contractTerms: random.chance(0.6) ? [36] : [12, 36] };
  if (roll < 0.9) return { ...noFilters, networks: [random.pick(['KPN', 'Eurofiber', 'Ziggo'])] };
  if (roll < 0.95) return { ...noFilters, connectionTypes: ['DIA'] };
  return { ...noFilters, technologyTypes: ['FIBER'], contractTerms: [36, 60] };
}

function offerMatches(offer: Offer, filters: StoredFilters): boolean {
  return (
    (filters.contractTerms.length === 0 || filters.contractTerms.includes(offer.contractTermMonths)) &&
    (filters.connectionTypes.length === 0 || filters.connectionTypes.includes(offer.connectionType)) &&
    (filters.technologyTypes.length === 0 || filters.technologyTypes.includes(offer.technologyType))
  );
}

/** Distinct random elements of `values`, at most `count`. */
function sample<T>(random: Random, values: readonly T[], count: number): T[] {
  const pool = [...values];
  const picked: T[] = [];
  while (picked.length < count && pool.length > 0) {
    picked.push(pool.splice(Math.floor(random.next() * pool.length), 1)[0] as T);
  }
  return picked;
}

/**
 * Seeds `count` completed availability requests in an instance that has the demo catalogue: each with its
 * address (inside a coverage area, coordinates of its city as the offline geocoder gives them), created
 * within the `days` before `now`, 2–3 gathering tasks (sources allowed by its filters; 4 % failed with a
 * timeout after 3 attempts) and 0–4 products per succeeded task from the source's offers for that area,
 * priced with `plan` (the instance's default). Returns the number of rows written per table.
 */
export function seedAvailabilityRequests(
  db: SqliteDb,
  input: {
    instanceId: string;
    userId: string;
    plan: PricePlanWithRules;
    count: number;
    now: number;
    days: number;
    random: Random;
  },
): { requests: number; tasks: number; products: number } {
  const { instanceId, userId, plan, random } = input;
  const sourceRows = db.select().from(sources).where(eq(sources.instanceId, instanceId)).all();
  const areaIds = new Map(
    db
      .select({ id: catalogAreas.id, key: catalogAreas.key })
      .from(catalogAreas)
      .where(eq(catalogAreas.instanceId, instanceId))
      .all()
      .map((row) => [row.key, row.id]),
  );
  const offersBySource = new Map<string, Offer[]>();
  for (const offer of db.select().from(catalogOffers).where(eq(catalogOffers.instanceId, instanceId)).all()) {
    offersBySource.set(offer.sourceId, [...(offersBySource.get(offer.sourceId) ?? []), offer]);
  }
  const areas = demoCatalogAreas();
  const cityCoordinates = new Map<string, { latitude: number; longitude: number } | null>();
  const counts = { requests: 0, tasks: 0, products: 0 };

  const writeAddresses = bulkInsert(db, addresses);
  const writeRequests = bulkInsert(db, availabilityRequests);
  const writeTasks = bulkInsert(db, gatheringTasks);
  const writeProducts = bulkInsert(db, availabilityRequestProducts, 400);
  // Task ids are rowids: continue after the instances seeded before this one.
  let lastTaskId = db.$client
    .prepare('select coalesce(max(id), 0) from gathering_tasks')
    .pluck()
    .get() as number;
  // Ascending creation times give ascending ids: primary-key inserts append instead of splitting pages.
  const times = Array.from({ length: input.count }, () =>
    Math.floor(input.now - random.next() * input.days * 86_400_000),
  ).sort((a, b) => a - b);
  db.transaction(
    () => {
      const batch = 2000;
      for (let start = 0; start < input.count; start += batch) {
        const addressRows: (typeof addresses.$inferInsert)[] = [];
        const requestRows: (typeof availabilityRequests.$inferInsert)[] = [];
        const taskRows: (typeof gatheringTasks.$inferInsert)[] = [];
        const productRows: (typeof availabilityRequestProducts.$inferInsert)[] = [];
        for (let n = start; n < Math.min(start + batch, input.count); n++) {
          const createdMs = times[n] as number;
          const created = new Date(createdMs);
          const place = dutchAddress(random, areas);
          if (!cityCoordinates.has(place.city)) {
            cityCoordinates.set(place.city, geocodeCity('NL', place.city)?.coordinates ?? null);
          }
          const coordinates = cityCoordinates.get(place.city) ?? null;
          const addressId = idAt('address', createdMs);
          addressRows.push({
            id: addressId,
            instanceId,
            inputKind: 'fields',
            street: place.street,
            city: place.city,
            houseNumber: place.houseNumber,
            houseNumberAddition: place.houseNumberAddition,
            postalCode: place.postalCode.replace(' ', ''),
            countryCode: 'NL',
            continentCode: 'EU',
            latitude: coordinates?.latitude ?? null,
            longitude: coordinates?.longitude ?? null,
            coordinatesPrecision: coordinates ? 'city' : null,
            createdAt: created,
            updatedAt: created,
          });
          const filters = randomFilters(random);
          const allowed = sourceRows.filter(
            (source) => filters.networks.length === 0 || filters.networks.includes(source.network),
          );
          const chosen = sample(random, allowed, random.int(2, 3));
          const requestId = idAt('availabilityRequest', createdMs);
          let finishedMs = createdMs;
          for (const source of chosen) {
            const failed = random.chance(0.04);
            const doneMs =
              createdMs + random.int(source.latencyMinMs, source.latencyMaxMs) * (failed ? 3 : 1);
            finishedMs = Math.max(finishedMs, doneMs);
            const done = new Date(doneMs);
            lastTaskId += 1;
            const taskId = lastTaskId;
            taskRows.push({
              id: taskId,
              instanceId,
              availabilityRequestId: requestId,
              sourceId: source.id,
              status: failed ? 'failed' : 'succeeded',
              attempts: failed ? 3 : 1,
              leaseExpiries: 0,
              availableAt: created,
              leaseOwner: null,
              leaseExpiresAt: null,
              errorCode: failed ? 'TIMEOUT' : null,
              errorMessage: failed ? 'The source did not answer in time.' : null,
              finishedAt: done,
              createdAt: created,
              updatedAt: done,
            });
            if (failed) continue;
            const areaId = areaIds.get(place.areaKey);
            const candidates = (offersBySource.get(source.id) ?? []).filter(
              (offer) => (offer.areaId === null || offer.areaId === areaId) && offerMatches(offer, filters),
            );
            for (const offer of sample(random, candidates, random.int(0, 4))) {
              const sale = salePrices(plan, { ...offer, network: source.network });
              productRows.push({
                id: idAt('availabilityRequestProduct', doneMs),
                instanceId,
                availabilityRequestId: requestId,
                gatheringTaskId: taskId,
                sourceId: source.id,
                network: source.network,
                technologyType: offer.technologyType,
                connectionType: offer.connectionType,
                downloadKbps: offer.downloadKbps,
                uploadKbps: offer.uploadKbps,
                contractTermMonths: offer.contractTermMonths,
                purchaseMrcMinor: offer.purchaseMrcMinor,
                purchaseNrcMinor: offer.purchaseNrcMinor,
                mrcMinor: sale.mrcMinor,
                nrcMinor: sale.nrcMinor,
                currency: offer.currency,
                createdAt: done,
              });
            }
          }
          requestRows.push({
            id: requestId,
            instanceId,
            addressId,
            createdByUserId: userId,
            customerId: null,
            projectId: null,
            pricePlanId: plan.id,
            filters,
            status: 'completed',
            sourcesTotal: chosen.length,
            sourcesFinished: chosen.length,
            createdAt: created,
            updatedAt: new Date(finishedMs),
          });
        }
        writeAddresses(addressRows);
        writeRequests(requestRows);
        writeTasks(taskRows);
        writeProducts(productRows);
        counts.requests += requestRows.length;
        counts.tasks += taskRows.length;
        counts.products += productRows.length;
      }
    },
    { behavior: 'immediate' },
  );
  return counts;
}

/**
 * Seeds `count` customers in an instance as `insertCustomer` writes them: gap-free `auto_sequence` from 1,
 * `name_folded` by the service's own `foldName`, account manager `userId`, the default plan for 90 % and
 * `otherPlanId` for the rest, and financial details (valid NL VAT number and IBAN) for 70 %.
 */
export function seedCustomers(
  db: SqliteDb,
  input: {
    instanceId: string;
    userId: string;
    defaultPlanId: string;
    otherPlanId: string;
    count: number;
    now: number;
    days: number;
    random: Random;
  },
): number {
  const { instanceId, random } = input;
  const customerRows: (typeof customers.$inferInsert)[] = [];
  const detailRows: (typeof customerFinancialDetails.$inferInsert)[] = [];
  // Sequences follow creation order, as the service assigns them.
  const times = Array.from({ length: input.count }, () =>
    Math.floor(input.now - random.next() * input.days * 86_400_000),
  ).sort((a, b) => a - b);
  times.forEach((createdMs, index) => {
    const name = companyName(random);
    const host = `${slug(name)}.nl`;
    const created = new Date(createdMs);
    const id = idAt('customer', createdMs);
    const formal = /(B\.V\.|N\.V\.|V\.O\.F\.)$/.test(name);
    customerRows.push({
      id,
      instanceId,
      autoSequence: index + 1,
      name,
      nameFolded: foldName(name),
      externalId: random.chance(0.4) ? `CRM-${String(random.int(1, 999_999)).padStart(6, '0')}` : null,
      legalName: formal ? name : null,
      businessRegistrationNumber: random.chance(0.7) ? String(random.int(10_000_000, 99_999_999)) : null,
      website: random.chance(0.6) ? `https://www.${host}` : null,
      interconnected: random.chance(0.1),
      preferredCurrency: random.chance(0.5) ? 'EUR' : null,
      monthlyAvailabilityRequestLimit: random.chance(0.15) ? random.pick([50, 100, 250, 500]) : null,
      internalNotes: random.chance(0.05) ? 'Raamcontract tot eind volgend jaar.' : null,
      agentId: null,
      networkNameOverride: null,
      customerRegion: random.chance(0.5) ? random.pick(dutchRegions) : null,
      pricePlanId: random.chance(0.9) ? input.defaultPlanId : input.otherPlanId,
      accountManagerUserId: input.userId,
      createdAt: created,
      updatedAt: created,
    });
    if (!random.chance(0.7)) return;
    const place = dutchAddress(random, demoCatalogAreas());
    detailRows.push({
      customerId: id,
      name: formal ? name : null,
      email: `facturen@${host}`,
      street: place.street,
      houseNumber: place.houseNumber,
      houseNumberAddition: place.houseNumberAddition || null,
      postalCode: place.postalCode.replace(' ', ''),
      city: place.city,
      region: null,
      countryCode: 'NL',
      vatNumber: dutchVatNumber(random),
      bankAccountNumber: dutchIban(random),
      applyVat: random.chance(0.95),
      paymentTermDays: random.pick([14, 30, 30, 30, 60]),
    });
  });
  const writeCustomers = bulkInsert(db, customers);
  const writeDetails = bulkInsert(db, customerFinancialDetails);
  db.transaction(
    () => {
      writeCustomers(customerRows);
      writeDetails(detailRows);
    },
    { behavior: 'immediate' },
  );
  return customerRows.length;
}
