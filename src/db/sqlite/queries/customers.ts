import { and, asc, eq, gt, inArray, or, sql } from 'drizzle-orm';
import { newId } from '../../../ids.js';
import { boundLimit } from '../bound-limit.js';
import type { SqliteDb } from '../client.js';
import { listTotal } from '../list-totals.js';
import { preparedQuery, preparedVariants } from '../prepared.js';
import { prepareNumber } from '../prepared-rows.js';
import { customerFinancialDetails, customers, pricePlans, projects, users } from '../schema/index.js';

/** A customer row. */
export type CustomerRow = typeof customers.$inferSelect;
/** A customer's financial-details row. */
export type FinancialDetailsRow = typeof customerFinancialDetails.$inferSelect;
/** A project row. */
export type ProjectRow = typeof projects.$inferSelect;

/** A project with its customer's name, as project documents show it. */
export interface ProjectRecord {
  project: ProjectRow;
  customerName: string;
}

/** A customer with what its list record nests: price plan, account manager and financial details. */
export interface CustomerRecord {
  customer: CustomerRow;
  pricePlan: { id: string; name: string };
  accountManager: { id: string; firstName: string; lastName: string };
  financialDetails: FinancialDetailsRow | null;
}

/** A customer to create (already validated); the sequence number is assigned here. */
export type NewCustomer = Omit<
  CustomerRow,
  'id' | 'instanceId' | 'autoSequence' | 'createdAt' | 'updatedAt'
> & {
  financialDetails: Omit<FinancialDetailsRow, 'customerId'> | null;
};

/**
 * Creates a customer and its financial details in one `BEGIN IMMEDIATE` transaction. The per-instance
 * sequence behind `auto_number` is the highest so far plus one, read inside the same write transaction,
 * so concurrent creates get distinct numbers with no gaps.
 */
export async function insertCustomer(
  db: SqliteDb,
  instanceId: string,
  input: NewCustomer,
  now: Date,
): Promise<CustomerRow> {
  return db.transaction(
    (tx) => {
      const { financialDetails, ...fields } = input;
      const last = tx
        .select({ max: sql<number | null>`max(${customers.autoSequence})` })
        .from(customers)
        .where(eq(customers.instanceId, instanceId))
        .get();
      const row: CustomerRow = {
        ...fields,
        id: newId('customer'),
        instanceId,
        autoSequence: (last?.max ?? 0) + 1,
        createdAt: now,
        updatedAt: now,
      };
      tx.insert(customers).values(row).run();
      if (financialDetails)
        tx.insert(customerFinancialDetails)
          .values({ ...financialDetails, customerId: row.id })
          .run();
      return row;
    },
    { behavior: 'immediate' },
  );
}

const recordColumns = {
  customer: customers,
  pricePlan: { id: pricePlans.id, name: pricePlans.name },
  accountManager: { id: users.id, firstName: users.firstName, lastName: users.lastName },
  financialDetails: customerFinancialDetails,
};

function recordQuery(db: SqliteDb) {
  return db
    .select(recordColumns)
    .from(customers)
    .innerJoin(pricePlans, eq(pricePlans.id, customers.pricePlanId))
    .innerJoin(users, eq(users.id, customers.accountManagerUserId))
    .leftJoin(customerFinancialDetails, eq(customerFinancialDetails.customerId, customers.id));
}

/**
 * Case-insensitive substring condition on the folded name (placeholder `nameFolded`). `instr` has no
 * wildcards, so `%`, `_` and `\` in the search are literal characters (DESIGN.md, "Customers list").
 */
function nameContains(filter: 'all' | 'name') {
  return filter === 'name'
    ? sql`instr(${customers.nameFolded}, ${sql.placeholder('nameFolded')}) > 0`
    : undefined;
}

const ofInstance = () => eq(customers.instanceId, sql.placeholder('instanceId'));

const customerById = preparedQuery((db) =>
  recordQuery(db)
    .where(and(ofInstance(), eq(customers.id, sql.placeholder('id'))))
    .prepare(),
);

/** One customer of an instance, or undefined (also for another instance's id). */
export async function findCustomer(
  db: SqliteDb,
  instanceId: string,
  id: string,
): Promise<CustomerRecord | undefined> {
  return customerById(db).get({ instanceId, id });
}

const customersByIds = preparedQuery((db) =>
  recordQuery(db)
    .where(
      and(ofInstance(), sql`${customers.id} in (select value from json_each(${sql.placeholder('ids')}))`),
    )
    .prepare(),
);

/** Those of the given ids that are customers of the instance (for batch loading). */
export async function findCustomers(
  db: SqliteDb,
  instanceId: string,
  ids: readonly string[],
): Promise<CustomerRecord[]> {
  if (ids.length === 0) return [];
  return customersByIds(db).all({ instanceId, ids: JSON.stringify(ids) });
}

const customerCount = preparedQuery((db) =>
  prepareNumber(
    db,
    db
      .select({ n: sql<number>`count(*)` })
      .from(customers)
      .where(and(ofInstance(), nameContains('name'))),
  ),
);

/**
 * Number of customers of an instance whose folded name contains `nameFolded`, counted; all of them when
 * null, read from the instance's list total (`listTotal`, no scan).
 */
export async function countCustomers(
  db: SqliteDb,
  instanceId: string,
  nameFolded: string | null,
): Promise<number> {
  if (!nameFolded) return listTotal(db, instanceId, 'customers');
  return customerCount(db).get({ instanceId, nameFolded }) ?? 0;
}

const customersPage = preparedVariants((db, filter: 'all' | 'name') =>
  recordQuery(db)
    .where(and(ofInstance(), nameContains(filter)))
    .orderBy(asc(customers.nameFolded), asc(customers.id))
    .limit(boundLimit(sql.placeholder('limit')))
    .offset(sql.placeholder('offset'))
    .prepare(),
);

/** A page of customers ordered by name, then id. */
export async function listCustomersPage(
  db: SqliteDb,
  instanceId: string,
  query: { nameFolded: string | null; offset: number; limit: number },
): Promise<CustomerRecord[]> {
  return customersPage(db, query.nameFolded ? 'name' : 'all').all({
    instanceId,
    nameFolded: query.nameFolded,
    limit: query.limit,
    offset: query.offset,
  });
}

type CustomerSliceVariant = `${'all' | 'name'}:${'first' | 'after'}`;

const customersSlice = preparedVariants((db, variant: CustomerSliceVariant) => {
  const [filter, start] = variant.split(':') as ['all' | 'name', 'first' | 'after'];
  const afterName = sql.placeholder('afterNameFolded');
  const bound =
    start === 'after'
      ? or(
          gt(customers.nameFolded, afterName),
          and(eq(customers.nameFolded, afterName), gt(customers.id, sql.placeholder('afterId'))),
        )
      : undefined;
  return recordQuery(db)
    .where(and(ofInstance(), nameContains(filter), bound))
    .orderBy(asc(customers.nameFolded), asc(customers.id))
    .limit(boundLimit(sql.placeholder('limit')))
    .prepare();
});

/** Customers after a (folded name, id) position in list order, for cursor connections. */
export async function sliceCustomers(
  db: SqliteDb,
  instanceId: string,
  query: { nameFolded: string | null; after: { nameFolded: string; id: string } | null; limit: number },
): Promise<CustomerRecord[]> {
  const { after } = query;
  return customersSlice(db, `${query.nameFolded ? 'name' : 'all'}:${after ? 'after' : 'first'}`).all({
    instanceId,
    nameFolded: query.nameFolded,
    afterNameFolded: after?.nameFolded ?? null,
    afterId: after?.id ?? null,
    limit: query.limit,
  });
}

/** Creates a project. */
export async function insertProject(
  db: SqliteDb,
  input: { instanceId: string; customerId: string; name: string; now: Date },
): Promise<ProjectRow> {
  const row: ProjectRow = {
    id: newId('project'),
    instanceId: input.instanceId,
    customerId: input.customerId,
    name: input.name,
    createdAt: input.now,
    updatedAt: input.now,
  };
  db.insert(projects).values(row).run();
  return row;
}

/** One project of an instance, or undefined. */
export async function findProject(
  db: SqliteDb,
  instanceId: string,
  id: string,
): Promise<ProjectRow | undefined> {
  return db
    .select()
    .from(projects)
    .where(and(eq(projects.instanceId, instanceId), eq(projects.id, id)))
    .get();
}

/** Projects of an instance (optionally of one customer), oldest first; with the total. */
export async function listProjectsPage(
  db: SqliteDb,
  instanceId: string,
  query: { customerId: string | null; offset: number; limit: number },
): Promise<{ rows: ProjectRecord[]; total: number }> {
  const where = and(
    eq(projects.instanceId, instanceId),
    query.customerId ? eq(projects.customerId, query.customerId) : undefined,
  );
  const rows = db
    .select({ project: projects, customerName: customers.name })
    .from(projects)
    .innerJoin(customers, eq(customers.id, projects.customerId))
    .where(where)
    .orderBy(asc(projects.createdAt), asc(projects.id))
    .limit(boundLimit(query.limit))
    .offset(query.offset)
    .all();
  return { rows, total: await db.$count(projects, where) };
}

/** The projects of several customers in one query (for batch loading), oldest first. */
export async function listProjectsOfCustomers(
  db: SqliteDb,
  instanceId: string,
  customerIds: readonly string[],
): Promise<ProjectRow[]> {
  if (customerIds.length === 0) return [];
  return db
    .select()
    .from(projects)
    .where(and(eq(projects.instanceId, instanceId), inArray(projects.customerId, [...customerIds])))
    .orderBy(asc(projects.createdAt), asc(projects.id))
    .all();
}
