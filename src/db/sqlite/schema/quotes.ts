import { index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import type { OrderTerms } from '../../contract/order-terms.js';
import { instanceProductFulfilments, quoteLineKinds, sourceTypes } from '../../values.js';
import { idColumn, timestamps } from './columns.js';
import { customers } from './customers.js';
import { instances, users } from './tenancy.js';

/**
 * The instance's own catalogue: items it sells besides connections (router rental, SLA upgrades,
 * managed services). A mandatory product is one the instance requires on every quote.
 * Prices in minor units of `currency`.
 */
export const instanceProducts = sqliteTable(
  'instance_products',
  {
    id: idColumn(),
    instanceId: text()
      .notNull()
      .references(() => instances.id),
    mandatory: integer({ mode: 'boolean' }).notNull(),
    name: text().notNull(),
    description: text().notNull().default(''),
    mrcMinor: integer().notNull(),
    nrcMinor: integer().notNull(),
    currency: text().notNull(),
    /** How its order lines are fulfilled: `manual` (by hand) or `none` (nothing to deliver; issue 49). */
    fulfilment: text({ enum: instanceProductFulfilments }).notNull().default('manual'),
    ...timestamps,
  },
  (t) => [index('instance_products_list_idx').on(t.instanceId, t.mandatory, t.name)],
);

/** A quote for a customer. `quote_number` = year, per-instance sequence within the year, instance code. */
export const quotes = sqliteTable(
  'quotes',
  {
    id: idColumn(),
    instanceId: text()
      .notNull()
      .references(() => instances.id),
    customerId: text()
      .notNull()
      .references(() => customers.id),
    createdByUserId: text().references(() => users.id),
    name: text().notNull(),
    referenceNumber: text(),
    year: integer().notNull(),
    sequence: integer().notNull(),
    quoteNumber: text().notNull(),
    currency: text().notNull(),
    validityDays: integer().notNull(),
    /** Calendar date (UTC) `YYYY-MM-DD`: creation date + validity days. */
    expirationDate: text().notNull(),
    ...timestamps,
  },
  (t) => [
    uniqueIndex('quotes_number_unique').on(t.instanceId, t.year, t.sequence),
    index('quotes_list_idx').on(t.instanceId, t.createdAt, t.id),
  ],
);

/**
 * A product on a quote: a snapshot of its name, kind, bandwidth / term and sale prices taken when it was
 * added, so later catalogue changes never move a quote's totals.
 */
export const quoteLines = sqliteTable(
  'quote_lines',
  {
    id: idColumn(),
    instanceId: text()
      .notNull()
      .references(() => instances.id),
    quoteId: text()
      .notNull()
      .references(() => quotes.id),
    kind: text({ enum: quoteLineKinds }).notNull(),
    /** The id of the product this line was made from. */
    productId: text().notNull(),
    name: text().notNull(),
    network: text(),
    technologyType: text(),
    connectionType: text(),
    downloadKbps: integer(),
    uploadKbps: integer(),
    contractTermMonths: integer(),
    mrcMinor: integer().notNull(),
    nrcMinor: integer().notNull(),
    currency: text().notNull(),
    /** The source of a connection line (null for the instance's own products). */
    sourceId: text(),
    /** The source's name and type when the line was added (null for the instance's own products; issue 49). */
    sourceName: text(),
    sourceType: text({ enum: sourceTypes }),
    /** The product's purchase prices, in minor units of `currency` (null for the instance's own products). */
    purchaseMrcMinor: integer(),
    purchaseNrcMinor: integer(),
    /** How to order the line from its seller; null when it is ordered by hand. */
    orderTerms: text({ mode: 'json' }).$type<OrderTerms>(),
    position: integer().notNull(),
    createdAt: integer({ mode: 'timestamp_ms' }).notNull(),
  },
  (t) => [
    uniqueIndex('quote_lines_product_unique').on(t.quoteId, t.productId),
    index('quote_lines_quote_idx').on(t.quoteId, t.position),
  ],
);
