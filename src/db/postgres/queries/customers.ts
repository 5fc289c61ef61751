/** The PostgreSQL store's customer and project operations, as `contract/customers.ts` states them. */
import { and, asc, eq, inArray, type SQL, sql } from 'drizzle-orm';
import { newCustomerRows, newProjectRow } from '../../shared/customers.js';
import { bytewise } from '../bytewise.js';
import type { PostgresDb } from '../client.js';
import { ofInstanceIn } from '../id-arrays.js';
import { listTotal } from '../list-totals.js';
import type { Op } from '../operation.js';
import { preparedQuery, preparedVariants } from '../prepared.js';
import { prepareNumber } from '../prepared-rows.js';
import { customerFinancialDetails, customers, pricePlans, projects, users } from '../schema/index.js';

/**
 * The highest sequence is read after taking a transaction-level advisory lock on the instance
 * (`pg_advisory_xact_lock`), held until commit: concurrent creates in an instance run one after another.
 */
export const insertCustomer: Op<'insertCustomer'> = async (db, instanceId, input, now) => {
  return db.transaction(async (tx) => {
    await tx.execute(
      sql`select pg_advisory_xact_lock(hashtext('customers.auto_sequence'), hashtext(${instanceId}))`,
    );
    const [last] = await tx
      .select({ max: sql<number | null>`max(${customers.autoSequence})` })
      .from(customers)
      .where(eq(customers.instanceId, instanceId));
    const { customer, financialDetails } = newCustomerRows(instanceId, input, last?.max ?? null, now);
    await tx.insert(customers).values(customer);
    if (financialDetails) await tx.insert(customerFinancialDetails).values(financialDetails);
    return customer;
  });
};

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
 * The name filter as `name_folded LIKE '%…%'`, which the trigram index `customers_name_trigram_idx` (GIN,
 * `gin_trgm_ops` on `name_folded`) serves; `%`, `_` and `\` of the search are escaped (see `containing`)
 * so they match literally.
 */
function nameContains(nameFolded: string | null): SQL | undefined {
  if (!nameFolded) return undefined;
  return sql`${customers.nameFolded} like ${containing(nameFolded)}`;
}

/** The `LIKE` pattern of a substring: `%…%`, with `%`, `_` and `\` escaped (LIKE's default escape character). */
function containing(nameFolded: string): string {
  return `%${nameFolded.replace(/[\\%_]/g, (char) => `\\${char}`)}%`;
}

/** List order: folded name, then id, bytewise whatever the database's default collation. */
const listOrder = [asc(bytewise(customers.nameFolded)), asc(bytewise(customers.id))];

export const findCustomer: Op<'findCustomer'> = async (db, instanceId, id) => {
  const [record] = await recordQuery(db).where(
    and(eq(customers.instanceId, instanceId), eq(customers.id, id)),
  );
  return record;
};

export const findCustomers: Op<'findCustomers'> = async (db, instanceId, ids) => {
  if (ids.length === 0) return [];
  return recordQuery(db).where(and(eq(customers.instanceId, instanceId), inArray(customers.id, [...ids])));
};

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

export const countCustomers: Op<'countCustomers'> = async (db, instanceId, nameFolded) => {
  if (!nameFolded) return listTotal(db, instanceId, 'customers');
  return (await namedCount(db).get({ instanceId, pattern: containing(nameFolded) })) ?? 0;
};

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

export const listCustomersPage: Op<'listCustomersPage'> = async (db, instanceId, query) => {
  const { nameFolded } = query;
  return customerPage(db, nameFolded ? 'named' : 'all').execute({
    instanceId,
    pattern: nameFolded ? containing(nameFolded) : null,
    limit: query.limit,
    offset: query.offset,
  });
};

/** The position is compared as a row, bytewise, as the list is ordered. */
export const sliceCustomers: Op<'sliceCustomers'> = async (db, instanceId, query) => {
  const { after } = query;
  const bound = after
    ? sql`(${bytewise(customers.nameFolded)}, ${bytewise(customers.id)}) > (${after.nameFolded}, ${after.id})`
    : undefined;
  return recordQuery(db)
    .where(and(eq(customers.instanceId, instanceId), nameContains(query.nameFolded), bound))
    .orderBy(...listOrder)
    .limit(query.limit);
};

export const insertProject: Op<'insertProject'> = async (db, input) => {
  const row = newProjectRow(input);
  await db.insert(projects).values(row);
  return row;
};

export const findProject: Op<'findProject'> = async (db, instanceId, id) => {
  const [row] = await db
    .select()
    .from(projects)
    .where(and(eq(projects.instanceId, instanceId), eq(projects.id, id)));
  return row;
};

/** Project order: oldest first, ties by id bytewise. */
const projectOrder = [asc(projects.createdAt), asc(bytewise(projects.id))];

export const listProjectsPage: Op<'listProjectsPage'> = async (db, instanceId, query) => {
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
};

const projectsOfCustomers = preparedQuery('projects_of_customers', (db, name) =>
  db
    .select()
    .from(projects)
    .where(ofInstanceIn(projects, projects.customerId, 'customerIds'))
    .orderBy(...projectOrder)
    .prepare(name),
);

export const listProjectsOfCustomers: Op<'listProjectsOfCustomers'> = async (db, instanceId, customerIds) => {
  if (customerIds.length === 0) return [];
  return projectsOfCustomers(db).execute({ instanceId, customerIds });
};
