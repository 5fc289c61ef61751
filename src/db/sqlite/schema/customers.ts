import { index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { idColumn, timestamps } from './columns.js';
import { instances, users } from './tenancy.js';

/**
 * A price plan: margin rules that turn purchase prices into sale prices. Markups are in basis points of
 * the purchase price (2500 = +25 %). Exactly one plan per instance is its default.
 */
export const pricePlans = sqliteTable(
  'price_plans',
  {
    id: idColumn(),
    instanceId: text()
      .notNull()
      .references(() => instances.id),
    name: text().notNull(),
    isDefault: integer({ mode: 'boolean' }).notNull().default(false),
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
export const pricePlanRules = sqliteTable(
  'price_plan_rules',
  {
    id: integer().primaryKey({ autoIncrement: true }),
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
export const customers = sqliteTable(
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
    interconnected: integer({ mode: 'boolean' }).notNull().default(false),
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
    index('customers_list_idx').on(t.instanceId, t.nameFolded, t.id),
  ],
);

/** Invoicing details of a customer (contract, "Financial details"); one row per customer at most. */
export const customerFinancialDetails = sqliteTable('customer_financial_details', {
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
  applyVat: integer({ mode: 'boolean' }).notNull().default(false),
  paymentTermDays: integer(),
});

/** A project of a customer; a request's project selects the customer's pricing. */
export const projects = sqliteTable(
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
  (t) => [index('projects_customer_idx').on(t.instanceId, t.customerId, t.createdAt)],
);
