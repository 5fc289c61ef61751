import { sql } from 'drizzle-orm';
import { index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { idColumn, timestamps } from './columns.js';

/** An instance is a tenant: a reseller. Every other row belongs to exactly one instance. */
export const instances = sqliteTable(
  'instances',
  {
    id: idColumn(),
    name: text().notNull(),
    /** Short upper-case code used in quote numbers (`2026-0003-ACM`). */
    code: text().notNull(),
    /** Currency of quotes for customers without a preferred currency (ISO 4217). */
    defaultCurrency: text().notNull().default('EUR'),
    /** Days a quote stays valid after its creation date. */
    quoteValidityDays: integer().notNull().default(30),
    ...timestamps,
  },
  (t) => [uniqueIndex('instances_code_unique').on(t.code)],
);

/** A person or service account of an instance. Roles: `instance_admin`, `connectivity_check`. */
export const users = sqliteTable(
  'users',
  {
    id: idColumn(),
    instanceId: text()
      .notNull()
      .references(() => instances.id),
    email: text().notNull(),
    firstName: text().notNull(),
    lastName: text().notNull(),
    locale: text().notNull().default('en'),
    /** JSON array of role names. */
    roles: text({ mode: 'json' }).$type<string[]>().notNull().default(sql`'[]'`),
    ...timestamps,
  },
  (t) => [index('users_instance_idx').on(t.instanceId)],
);

/** Client credentials of an instance; the secret is stored as a SHA-256 hash only. */
export const applications = sqliteTable(
  'applications',
  {
    id: idColumn(),
    instanceId: text()
      .notNull()
      .references(() => instances.id),
    userId: text()
      .notNull()
      .references(() => users.id),
    name: text().notNull(),
    clientId: text().notNull(),
    clientSecretHash: text().notNull(),
    /** Set while an operator has disabled the application: none of its tokens is accepted, none is issued. */
    disabledAt: integer({ mode: 'timestamp_ms' }),
    ...timestamps,
  },
  (t) => [uniqueIndex('applications_client_id_unique').on(t.clientId)],
);

/** Issued auth and refresh tokens, stored as SHA-256 hashes; a token is never stored in clear. */
export const authTokens = sqliteTable(
  'auth_tokens',
  {
    id: idColumn(),
    instanceId: text()
      .notNull()
      .references(() => instances.id),
    userId: text()
      .notNull()
      .references(() => users.id),
    applicationId: text()
      .notNull()
      .references(() => applications.id),
    kind: text({ enum: ['auth', 'refresh'] }).notNull(),
    tokenHash: text().notNull(),
    expiresAt: integer({ mode: 'timestamp_ms' }).notNull(),
    revokedAt: integer({ mode: 'timestamp_ms' }),
    createdAt: integer({ mode: 'timestamp_ms' }).notNull(),
  },
  (t) => [
    uniqueIndex('auth_tokens_hash_unique').on(t.tokenHash),
    index('auth_tokens_expiry_idx').on(t.expiresAt),
  ],
);

/** Service-wide settings that must survive restarts (e.g. the generated token-signing secret). */
export const serviceSettings = sqliteTable('service_settings', {
  key: text().primaryKey(),
  value: text().notNull(),
});
