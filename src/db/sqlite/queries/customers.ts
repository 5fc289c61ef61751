/** The SQLite store's customer and project operations, as `contract/customers.ts` states them. */
import { and, asc, eq, gt, or, sql } from 'drizzle-orm';
import { newCustomerRows, newProjectRow } from '../../shared/customers.js';
import { boundLimit } from '../bound-limit.js';
import type { SqliteDb } from '../client.js';
import { inJsonIds, ofInstanceIn } from '../json-ids.js';
import { listTotal } from '../list-totals.js';
import type { Op } from '../operation.js';
import { preparedQuery, preparedVariants } from '../prepared.js';
import { prepareNumber } from '../prepared-rows.js';
import { customerFinancialDetails, customers, pricePlans, projects, users } from '../schema/index.js';

/**
 * One `BEGIN IMMEDIATE` transaction: the highest sequence is read under the write lock, so concurrent
 * creates are numbered one after the other.
 */
export const insertCustomer: Op<'insertCustomer'> = async (db, instanceId, input, now) => {
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
};

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

export const findCustomer: Op<'findCustomer'> = async (db, instanceId, id) => {
  return customerById(db).get({ instanceId, id });
};

const customersByIds = preparedQuery((db) =>
  recordQuery(db)
    .where(and(ofInstance(), inJsonIds(customers.id, 'ids')))
    .prepare(),
);

export const findCustomers: Op<'findCustomers'> = async (db, instanceId, ids) => {
  if (ids.length === 0) return [];
  return customersByIds(db).all({ instanceId, ids: JSON.stringify(ids) });
};

const customerCount = preparedQuery((db) =>
  prepareNumber(
    db,
    db
      .select({ n: sql<number>`count(*)` })
      .from(customers)
      .where(and(ofInstance(), nameContains('name'))),
  ),
);

export const countCustomers: Op<'countCustomers'> = async (db, instanceId, nameFolded) => {
  if (!nameFolded) return listTotal(db, instanceId, 'customers');
  return customerCount(db).get({ instanceId, nameFolded }) ?? 0;
};

const customersPage = preparedVariants((db, filter: 'all' | 'name') =>
  recordQuery(db)
    .where(and(ofInstance(), nameContains(filter)))
    .orderBy(asc(customers.nameFolded), asc(customers.id))
    .limit(boundLimit(sql.placeholder('limit')))
    .offset(sql.placeholder('offset'))
    .prepare(),
);

export const listCustomersPage: Op<'listCustomersPage'> = async (db, instanceId, query) => {
  return customersPage(db, query.nameFolded ? 'name' : 'all').all({
    instanceId,
    nameFolded: query.nameFolded,
    limit: query.limit,
    offset: query.offset,
  });
};

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

export const sliceCustomers: Op<'sliceCustomers'> = async (db, instanceId, query) => {
  const { after } = query;
  return customersSlice(db, `${query.nameFolded ? 'name' : 'all'}:${after ? 'after' : 'first'}`).all({
    instanceId,
    nameFolded: query.nameFolded,
    afterNameFolded: after?.nameFolded ?? null,
    afterId: after?.id ?? null,
    limit: query.limit,
  });
};

export const insertProject: Op<'insertProject'> = async (db, input) => {
  const row = newProjectRow(input);
  db.insert(projects).values(row).run();
  return row;
};

export const findProject: Op<'findProject'> = async (db, instanceId, id) => {
  return db
    .select()
    .from(projects)
    .where(and(eq(projects.instanceId, instanceId), eq(projects.id, id)))
    .get();
};

export const listProjectsPage: Op<'listProjectsPage'> = async (db, instanceId, query) => {
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
};

const projectsOfCustomers = preparedQuery((db) =>
  db
    .select()
    .from(projects)
    .where(ofInstanceIn(projects, projects.customerId, 'customerIds'))
    .orderBy(asc(projects.createdAt), asc(projects.id))
    .prepare(),
);

export const listProjectsOfCustomers: Op<'listProjectsOfCustomers'> = async (db, instanceId, customerIds) => {
  if (customerIds.length === 0) return [];
  return projectsOfCustomers(db).all({ instanceId, customerIds: JSON.stringify(customerIds) });
};
