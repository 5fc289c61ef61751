import { afterEach, beforeEach } from 'vitest';
import { openStore } from '../../src/db/open.js';
import type { NewOrder, NewOrderLine, OrderRecord, SupplierOrderProgress } from '../../src/db/rows.js';
import type { Store } from '../../src/db/store.js';
import { createLogger } from '../../src/logger.js';
import { tempDatabasePath } from '../helpers/app.js';

/*
 * What the store tests of supplier orders share: an instance with three `http` sources and customers, and
 * orders placed straight through the store (`insertOrder`), each with the supplier and manual lines asked.
 */

/** The time the fixtures are made at; supplier orders are due from then on. */
export const T0 = new Date('2026-11-25T10:00:00.000Z');

/** `T0` plus `ms`. */
export const at = (ms: number) => new Date(T0.getTime() + ms);

/** The rows an order needs around it: the instance, its user, three sources and a price plan. */
export interface SupplierOrderWorld {
  instanceId: string;
  userId: string;
  /** Source ids by key: `one`, `two`, `three`. */
  sources: Record<'one' | 'two' | 'three', string>;
  pricePlanId: string;
}

/** Makes an instance with a user, a default price plan and three `http` sources. */
export async function supplierOrderWorld(store: Store): Promise<SupplierOrderWorld> {
  const instance = await store.insertInstance({ name: 'Acme', code: 'ACM', now: T0 });
  const { userId } = await store.insertApplication({
    instanceId: instance.id,
    name: 'Desk',
    roles: ['instance_admin'],
    clientId: 'client-desk',
    clientSecretHash: 'secret-hash',
    now: T0,
  });
  const [plan] = await store.insertPricePlans(
    instance.id,
    [{ name: 'Standard', isDefault: true, rules: [], mrcMarkupBp: 0, nrcMarkupBp: 0 }],
    T0,
  );
  const source = async (key: string) =>
    (
      await store.insertSource(
        instance.id,
        {
          key,
          name: `Source ${key}`,
          network: key.toUpperCase(),
          type: 'http',
          countryCodes: ['NL'],
          enabled: true,
          endpointUrl: `http://127.0.0.1:9/${key}`,
          credentials: null,
          timeoutMs: 5_000,
          concurrency: 4,
        },
        T0,
      )
    ).id;
  return {
    instanceId: instance.id,
    userId,
    sources: { one: await source('one'), two: await source('two'), three: await source('three') },
    pricePlanId: plan?.id ?? '',
  };
}

/**
 * Before each test, a fresh store of this run's kind (a temporary SQLite file or PostgreSQL database) with
 * {@link supplierOrderWorld} made in it, handed to `use`; after it, the store closed and removed.
 */
export function supplierOrderWorldEach(use: (store: Store, world: SupplierOrderWorld) => void): void {
  let database: { path: string; remove(): void } | undefined;
  let store: Store | undefined;
  beforeEach(async () => {
    database = tempDatabasePath();
    store = await openStore(database.path, { poolSize: 4, logger: createLogger('silent') });
    use(store, await supplierOrderWorld(store));
  });
  afterEach(async () => {
    await store?.close();
    database?.remove();
  });
}

/** One line to order: from a source (a supplier line) or the instance's own product (null: a manual line). */
export type LineOf = string | null;

/**
 * Places an order for a new customer of `customerName` with one line per entry of `lines`, in that order
 * (positions 1, 2, 3…): a supplier line of the source given, or a manual line for null.
 */
export async function placeOrder(
  store: Store,
  world: SupplierOrderWorld,
  customerName: string,
  lines: readonly LineOf[],
): Promise<OrderRecord> {
  const placed = await store.insertOrder(await newOrderFor(store, world, customerName, lines));
  if (typeof placed === 'string') throw new Error(`the order was refused: ${placed}`);
  return placed;
}

/**
 * What {@link placeOrder} asks `insertOrder` for, with its customer and quote made first (a new customer of
 * `customerName`, a quote of theirs), so a test can place it itself.
 */
export async function newOrderFor(
  store: Store,
  world: SupplierOrderWorld,
  customerName: string,
  lines: readonly LineOf[],
): Promise<NewOrder> {
  const customer = await store.insertCustomer(
    world.instanceId,
    {
      name: customerName,
      nameFolded: customerName.toLowerCase(),
      externalId: null,
      legalName: null,
      businessRegistrationNumber: null,
      website: null,
      interconnected: false,
      preferredCurrency: null,
      monthlyAvailabilityRequestLimit: null,
      internalNotes: null,
      agentId: null,
      networkNameOverride: null,
      customerRegion: null,
      pricePlanId: world.pricePlanId,
      accountManagerUserId: world.userId,
      financialDetails: null,
    },
    T0,
  );
  const quote = await store.insertQuote({
    instanceId: world.instanceId,
    instanceCode: 'ACM',
    customerId: customer.id,
    userId: world.userId,
    name: `Office of ${customerName}`,
    referenceNumber: null,
    currency: 'EUR',
    validityDays: 30,
    expirationDate: '2026-12-25',
    lines: [],
    now: T0,
  });
  const orderLines = lines.map(
    (sourceId, index): NewOrderLine => ({
      quoteLineId: `qli_${customerName}_${index + 1}`,
      position: index + 1,
      name: sourceId === null ? 'Router rental' : `Fibre ${index + 1}`,
      fulfilment: sourceId === null ? 'manual' : 'supplier',
      sourceId,
      sourceName: sourceId === null ? null : `Source ${sourceId}`,
      sourceType: sourceId === null ? null : 'mef-sonata',
      contractTermMonths: sourceId === null ? null : 36,
      orderTerms: null,
      purchaseMrcMinor: 10_000 + index,
      purchaseNrcMinor: 0,
      currency: 'EUR',
    }),
  );
  return {
    instanceId: world.instanceId,
    quoteId: quote.id,
    customerId: customer.id,
    userId: world.userId,
    quoteUpdatedAt: quote.updatedAt,
    requestedCompletionDate: at(30 * 86_400_000),
    contact: { name: 'Jan Jansen', emailAddress: 'jan@example.com', number: null },
    lines: orderLines,
    now: T0,
  };
}

/** A step that changes nothing of a supplier order: its state kept, nothing of its lines given. */
export function quietStep(
  supplierOrderId: string,
  owner: string,
  now: Date,
  overrides: Partial<SupplierOrderProgress> = {},
): SupplierOrderProgress {
  return {
    supplierOrderId,
    owner,
    status: 'following',
    sellerOrderId: `seller-${supplierOrderId}`,
    sellerState: 'inProgress',
    nextCheckAt: new Date(now.getTime() + 60_000),
    readAt: now,
    errorCode: null,
    errorMessage: null,
    lines: [],
    now,
    ...overrides,
  };
}

/** The statements that read or write, without the transaction's own (`BEGIN`, `COMMIT`, …). */
export const dataStatements = (sql: readonly string[]) =>
  sql.filter((text) => !/^\s*(begin|commit|rollback|savepoint|release)\b/i.test(text));
