import { sql } from 'drizzle-orm';
import { bigint, boolean, index, integer, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { idColumn, timestamps } from './columns.js';
import { instances, users } from './tenancy.js';

/**
 * A price plan: margin rules that turn purchase prices into sale prices. Markups are in basis points of
 * the purchase price (2500 = +25 %). Exactly one plan per instance is its default.
 */
export const pricePlans = pgTable(
  'price_plans',
  {
    id: idColumn(),
    instanceId: text()
      .notNull()
      .references(() => instances.id),
    name: text().notNull(),
    isDefault: boolean().notNull().default(false),
    mrcMarkupBp: integer().notNull(),
    nrcMarkupBp: integer().notNull(),
    ...timestamps,
  },
  (t) => [uniqueIndex('price_plans_instance_name_unique').on(t.instanceId, t.name)],
);

/**
 * An override of a plan's markups for offers of a network, technology type and/or connection type
 * (null = any). The most specific matching rule wins.
 */
export const pricePlanRules = pgTable(
  'price_plan_rules',
  {
    id: bigint({ mode: 'number' }).primaryKey().generatedByDefaultAsIdentity(),
    pricePlanId: text()
      .notNull()
      .references(() => pricePlans.id, { onDelete: 'cascade' }),
    network: text(),
    technologyType: text(),
    connectionType: text(),
    mrcMarkupBp: integer().notNull(),
    nrcMarkupBp: integer().notNull(),
  },
  (t) => [
    uniqueIndex('price_plan_rules_criteria_unique').on(
      t.pricePlanId,
      t.network,
      t.technologyType,
      t.connectionType,
    ),
  ],
);

/** A customer of a reseller (contract, "Customer"). */
export const customers = pgTable(
  'customers',
  {
    id: idColumn(),
    instanceId: text()
      .notNull()
      .references(() => instances.id),
    /** Per-instance sequence number behind `auto_number`, assigned gap-free at creation. */
    autoSequence: integer().notNull(),
    name: text().notNull(),
    /** The name case-folded, for case-insensitive substring search and ordering. */
    nameFolded: text().notNull(),
    externalId: text(),
    legalName: text(),
    businessRegistrationNumber: text(),
    website: text(),
    interconnected: boolean().notNull().default(false),
    preferredCurrency: text(),
    monthlyAvailabilityRequestLimit: integer(),
    internalNotes: text(),
    agentId: text(),
    networkNameOverride: text(),
    customerRegion: text(),
    pricePlanId: text()
      .notNull()
      .references(() => pricePlans.id),
    accountManagerUserId: text()
      .notNull()
      .references(() => users.id),
    ...timestamps,
  },
  (t) => [
    uniqueIndex('customers_instance_sequence_unique').on(t.instanceId, t.autoSequence),
    // In the list's bytewise order (`COLLATE "C"`, as SQLite), which an index in the database's default
    // collation cannot serve.
    index('customers_list_idx').on(t.instanceId, sql`${t.nameFolded} collate "C"`, sql`${t.id} collate "C"`),
    // The name filter is a substring match (`%acme%`): a B-tree cannot serve it, trigrams can.
    index('customers_name_trigram_idx').using('gin', t.nameFolded.op('gin_trgm_ops')),
  ],
);

/** Invoicing details of a customer (contract, "Financial details"); one row per customer at most. */
export const customerFinancialDetails = pgTable('customer_financial_details', {
  customerId: text()
    .primaryKey()
    .references(() => customers.id, { onDelete: 'cascade' }),
  name: text(),
  email: text(),
  street: text(),
  houseNumber: text(),
  houseNumberAddition: text(),
  postalCode: text(),
  city: text(),
  region: text(),
  countryCode: text(),
  vatNumber: text(),
  bankAccountNumber: text(),
  applyVat: boolean().notNull().default(false),
  paymentTermDays: integer(),
});

/** A project of a customer; a request's project selects the customer's pricing. */
export const projects = pgTable(
  'projects',
  {
    id: idColumn(),
    instanceId: text()
      .notNull()
      .references(() => instances.id),
    customerId: text()
      .notNull()
      .references(() => customers.id),
    name: text().notNull(),
    ...timestamps,
  },
  // A customer's projects in list order: oldest first, ties by id bytewise (`COLLATE "C"`, as SQLite).
  (t) => [
    index('projects_customer_idx').on(t.instanceId, t.customerId, t.createdAt, sql`${t.id} collate "C"`),
  ],
);
