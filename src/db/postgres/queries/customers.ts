import { and, asc, eq, inArray, type SQL, sql } from 'drizzle-orm';
import { newId } from '../../../ids.js';
import type { CustomerRecord, CustomerRow, NewCustomer, ProjectRecord, ProjectRow } from '../../rows.js';
import { bytewise } from '../bytewise.js';
import type { PostgresDb } from '../client.js';
import { listTotal } from '../list-totals.js';
import { preparedQuery, preparedVariants } from '../prepared.js';
import { prepareNumber } from '../prepared-rows.js';
import { customerFinancialDetails, customers, pricePlans, projects, users } from '../schema/index.js';

/**
 * Creates a customer and its financial details in one transaction. The per-instance sequence behind
 * `auto_number` is the highest so far plus one; on PostgreSQL it is read after taking a transaction-level
 * advisory lock on the instance (`pg_advisory_xact_lock`), held until commit, so concurrent creates in an
 * instance run one after another and get distinct numbers with no gaps.
 */
export async function insertCustomer(
  db: PostgresDb,
  instanceId: string,
  input: NewCustomer,
  now: Date,
): Promise<CustomerRow> {
  return db.transaction(async (tx) => {
    const { financialDetails, ...fields } = input;
    await tx.execute(
      sql`select pg_advisory_xact_lock(hashtext('customers.auto_sequence'), hashtext(${instanceId}))`,
    );
    const [last] = await tx
      .select({ max: sql<number | null>`max(${customers.autoSequence})` })
      .from(customers)
      .where(eq(customers.instanceId, instanceId));
    const row: CustomerRow = {
      ...fields,
      id: newId('customer'),
      instanceId,
      autoSequence: (last?.max ?? 0) + 1,
      createdAt: now,
      updatedAt: now,
    };
    await tx.insert(customers).values(row);
    if (financialDetails)
      await tx.insert(customerFinancialDetails).values({ ...financialDetails, customerId: row.id });
    return row;
  });
}

function recordQuery(db: PostgresDb) {
  return db
    .select({
      customer: customers,
      pricePlan: { id: pricePlans.id, name: pricePlans.name },
      accountManager: { id: users.id, firstName: users.firstName, lastName: users.lastName },
      financialDetails: customerFinancialDetails,
    })
    .from(customers)
    .innerJoin(pricePlans, eq(pricePlans.id, customers.pricePlanId))
    .innerJoin(users, eq(users.id, customers.accountManagerUserId))
    .leftJoin(customerFinancialDetails, eq(customerFinancialDetails.customerId, customers.id));
}

/**
 * Case-sensitive substring condition on the folded name, as SQLite's `instr`: `name_folded LIKE
 * '%…%'`, which the trigram index `customers_name_trigram_idx` (GIN, `gin_trgm_ops` on `name_folded`)
 * serves. `%`, `_` and `\` of the search are escaped with `\`, LIKE's default escape character, so they
 * match literally (DESIGN.md, "Customers list"). No filter for a null or empty search, as SQLite.
 */
function nameContains(nameFolded: string | null): SQL | undefined {
  if (!nameFolded) return undefined;
  return sql`${customers.nameFolded} like ${containing(nameFolded)}`;
}

/** The `LIKE` pattern of a substring: `%…%`, with `%`, `_` and `\` escaped (LIKE's default escape character). */
function containing(nameFolded: string): string {
  return `%${nameFolded.replace(/[\\%_]/g, (char) => `\\${char}`)}%`;
}

/** List order: folded name, then id, both bytewise. */
const listOrder = [asc(bytewise(customers.nameFolded)), asc(bytewise(customers.id))];

/** One customer of an instance, or undefined (also for another instance's id). */
export async function findCustomer(
  db: PostgresDb,
  instanceId: string,
  id: string,
): Promise<CustomerRecord | undefined> {
  const [record] = await recordQuery(db).where(
    and(eq(customers.instanceId, instanceId), eq(customers.id, id)),
  );
  return record;
}

/** Those of the given ids that are customers of the instance (for batch loading), in no set order. */
export async function findCustomers(
  db: PostgresDb,
  instanceId: string,
  ids: readonly string[],
): Promise<CustomerRecord[]> {
  if (ids.length === 0) return [];
  return recordQuery(db).where(and(eq(customers.instanceId, instanceId), inArray(customers.id, [...ids])));
}

const namedCount = preparedQuery('customers_named_count', (db, name) =>
  prepareNumber(
    db,
    name,
    db
      .select({ n: sql<number>`count(*)::int` })
      .from(customers)
      .where(
        and(
          eq(customers.instanceId, sql.placeholder('instanceId')),
          sql`${customers.nameFolded} like ${sql.placeholder('pattern')}`,
        ),
      ),
  ),
);

/** Number of customers of an instance whose folded name contains `nameFolded` (all when null). */
export async function countCustomers(
  db: PostgresDb,
  instanceId: string,
  nameFolded: string | null,
): Promise<number> {
  if (!nameFolded) return listTotal(db, instanceId, 'customers');
  return (await namedCount(db).get({ instanceId, pattern: containing(nameFolded) })) ?? 0;
}

const customerPage = preparedVariants('customers_page', ['all', 'named'] as const, (db, variant, name) =>
  recordQuery(db)
    .where(
      and(
        eq(customers.instanceId, sql.placeholder('instanceId')),
        variant === 'named' ? sql`${customers.nameFolded} like ${sql.placeholder('pattern')}` : undefined,
      ),
    )
    .orderBy(...listOrder)
    .limit(sql.placeholder('limit'))
    .offset(sql.placeholder('offset'))
    .prepare(name),
);

/** A page of customers ordered by folded name, then id (bytewise, as SQLite). */
export async function listCustomersPage(
  db: PostgresDb,
  instanceId: string,
  query: { nameFolded: string | null; offset: number; limit: number },
): Promise<CustomerRecord[]> {
  const { nameFolded } = query;
  return customerPage(db, nameFolded ? 'named' : 'all').execute({
    instanceId,
    pattern: nameFolded ? containing(nameFolded) : null,
    limit: query.limit,
    offset: query.offset,
  });
}

/**
 * Customers after a (folded name, id) position in list order, for cursor connections. The position is
 * compared as a row, bytewise, so a cursor from the SQLite store resumes at the same customer.
 */
export async function sliceCustomers(
  db: PostgresDb,
  instanceId: string,
  query: { nameFolded: string | null; after: { nameFolded: string; id: string } | null; limit: number },
): Promise<CustomerRecord[]> {
  const { after } = query;
  const bound = after
    ? sql`(${bytewise(customers.nameFolded)}, ${bytewise(customers.id)}) > (${after.nameFolded}, ${after.id})`
    : undefined;
  return recordQuery(db)
    .where(and(eq(customers.instanceId, instanceId), nameContains(query.nameFolded), bound))
    .orderBy(...listOrder)
    .limit(query.limit);
}

/** Creates a project. */
export async function insertProject(
  db: PostgresDb,
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
  await db.insert(projects).values(row);
  return row;
}

/** One project of an instance, or undefined. */
export async function findProject(
  db: PostgresDb,
  instanceId: string,
  id: string,
): Promise<ProjectRow | undefined> {
  const [row] = await db
    .select()
    .from(projects)
    .where(and(eq(projects.instanceId, instanceId), eq(projects.id, id)));
  return row;
}

/** Project order: oldest first, ties by id (bytewise, as SQLite). */
const projectOrder = [asc(projects.createdAt), asc(bytewise(projects.id))];

/** Projects of an instance (optionally of one customer), oldest first; with the total. */
export async function listProjectsPage(
  db: PostgresDb,
  instanceId: string,
  query: { customerId: string | null; offset: number; limit: number },
): Promise<{ rows: ProjectRecord[]; total: number }> {
  const where = and(
    eq(projects.instanceId, instanceId),
    query.customerId ? eq(projects.customerId, query.customerId) : undefined,
  );
  const rows = await db
    .select({ project: projects, customerName: customers.name })
    .from(projects)
    .innerJoin(customers, eq(customers.id, projects.customerId))
    .where(where)
    .orderBy(...projectOrder)
    .limit(query.limit)
    .offset(query.offset);
  return { rows, total: await db.$count(projects, where) };
}

/** The projects of several customers in one query (for batch loading), oldest first. */
export async function listProjectsOfCustomers(
  db: PostgresDb,
  instanceId: string,
  customerIds: readonly string[],
): Promise<ProjectRow[]> {
  if (customerIds.length === 0) return [];
  return db
    .select()
    .from(projects)
    .where(and(eq(projects.instanceId, instanceId), inArray(projects.customerId, [...customerIds])))
    .orderBy(...projectOrder);
}
