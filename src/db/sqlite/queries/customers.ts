/** The SQLite store's customer and project operations, as `contract/customers.ts` states them. */
import { and, asc, eq, gt, inArray, or, sql } from 'drizzle-orm';
import type {
  CustomerPageQuery,
  CustomerRecord,
  CustomerRow,
  CustomerSliceQuery,
  NewCustomer,
  NewProject,
  ProjectPageQuery,
  ProjectRow,
  ProjectsPage,
} from '../../contract/index.js';
import { newCustomerRows, newProjectRow } from '../../shared/customers.js';
import { boundLimit } from '../bound-limit.js';
import type { SqliteDb } from '../client.js';
import { listTotal } from '../list-totals.js';
import { preparedQuery, preparedVariants } from '../prepared.js';
import { prepareNumber } from '../prepared-rows.js';
import { customerFinancialDetails, customers, pricePlans, projects, users } from '../schema/index.js';

// One `BEGIN IMMEDIATE` transaction: the highest sequence is read under the write lock, so concurrent
// creates are numbered one after the other.
export async function insertCustomer(
  db: SqliteDb,
  instanceId: string,
  input: NewCustomer,
  now: Date,
): Promise<CustomerRow> {
  return db.transaction(
    (tx) => {
      const last = tx
        .select({ max: sql<number | null>`max(${customers.autoSequence})` })
        .from(customers)
        .where(eq(customers.instanceId, instanceId))
        .get();
      const { customer, financialDetails } = newCustomerRows(instanceId, input, last?.max ?? null, now);
      tx.insert(customers).values(customer).run();
      if (financialDetails) tx.insert(customerFinancialDetails).values(financialDetails).run();
      return customer;
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
 * The name filter (placeholder `nameFolded`) through `instr`, which has no wildcards: `%`, `_` and `\` of
 * the search are literal without escaping.
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

export async function listCustomersPage(
  db: SqliteDb,
  instanceId: string,
  query: CustomerPageQuery,
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

export async function sliceCustomers(
  db: SqliteDb,
  instanceId: string,
  query: CustomerSliceQuery,
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

export async function insertProject(db: SqliteDb, input: NewProject): Promise<ProjectRow> {
  const row = newProjectRow(input);
  db.insert(projects).values(row).run();
  return row;
}

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

export async function listProjectsPage(
  db: SqliteDb,
  instanceId: string,
  query: ProjectPageQuery,
): Promise<ProjectsPage> {
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
