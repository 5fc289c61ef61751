import DataLoader from 'dataloader';
import type { Context } from '../context.js';
import type {
  AvailabilityRequestRecord,
  CustomerRecord,
  PricePlanWithRules,
  ProductRow,
  ProjectRow,
  SourceOutcome,
} from '../db/rows.js';
import { AppError } from '../errors.js';

/** Batch loaders of one operation: each turns the N look-ups a list's fields make into one query. */
export interface Loaders {
  productsOfRequest: DataLoader<string, ProductRow[]>;
  sourceOutcomesOfRequest: DataLoader<string, SourceOutcome[]>;
  customer: DataLoader<string, CustomerRecord | null>;
  projectsOfCustomer: DataLoader<string, ProjectRow[]>;
  requestCountOfCustomer: DataLoader<string, number>;
  pricePlan: DataLoader<string, PricePlanWithRules | null>;
  /** The newest `limit` requests of a customer; one loader per limit. */
  latestRequestsOfCustomer(limit: number): DataLoader<string, AvailabilityRequestRecord[]>;
}

function groupBy<T>(keys: readonly string[], rows: readonly T[], keyOf: (row: T) => string | null): T[][] {
  const groups = new Map<string, T[]>(keys.map((key) => [key, []]));
  for (const row of rows) groups.get(keyOf(row) ?? '')?.push(row);
  return keys.map((key) => groups.get(key) ?? []);
}

// Keyed by the context object, so loaders live exactly as long as one operation and never cross tenants.
const perContext = new WeakMap<Context, Loaders>();

/**
 * The loaders of an operation's context, created on first use. Every loader reads only the viewer's
 * instance.
 * @throws {AppError} `UNAUTHENTICATED` without a viewer.
 */
export function loadersFor(ctx: Context): Loaders {
  const existing = perContext.get(ctx);
  if (existing) return existing;
  const instanceId = ctx.viewer?.instanceId;
  if (!instanceId)
    throw new AppError('UNAUTHENTICATED', 'Send a valid auth token in the X-Auth-Token header.');
  const byLimit = new Map<number, DataLoader<string, AvailabilityRequestRecord[]>>();
  const loaders: Loaders = {
    productsOfRequest: new DataLoader(async (ids) =>
      groupBy(ids, await ctx.db.listProductsOfRequests(instanceId, ids), (row) => row.availabilityRequestId),
    ),
    sourceOutcomesOfRequest: new DataLoader(async (ids) =>
      groupBy(ids, await ctx.db.listSourceOutcomes(instanceId, ids), (row) => row.availabilityRequestId),
    ),
    customer: new DataLoader(async (ids) => {
      const found = new Map(
        (await ctx.db.findCustomers(instanceId, ids)).map((record) => [record.customer.id, record]),
      );
      return ids.map((id) => found.get(id) ?? null);
    }),
    projectsOfCustomer: new DataLoader(async (ids) =>
      groupBy(ids, await ctx.db.listProjectsOfCustomers(instanceId, ids), (row) => row.customerId),
    ),
    pricePlan: new DataLoader(async (ids) => {
      // An instance has a handful of plans: one read of all of them serves any number of customers.
      const plans = new Map((await ctx.db.listPricePlans(instanceId)).map((plan) => [plan.id, plan]));
      return ids.map((id) => plans.get(id) ?? null);
    }),
    requestCountOfCustomer: new DataLoader(async (ids) => {
      const counts = await ctx.db.countRequestsOfCustomers(instanceId, ids);
      return ids.map((id) => counts.get(id) ?? 0);
    }),
    latestRequestsOfCustomer(limit) {
      let loader = byLimit.get(limit);
      if (!loader) {
        loader = new DataLoader(async (ids) =>
          groupBy(
            ids,
            await ctx.db.listLatestRequestsOfCustomers(instanceId, ids, limit),
            (row) => row.customerId,
          ),
        );
        byLimit.set(limit, loader);
      }
      return loader;
    },
  };
  perContext.set(ctx, loaders);
  return loaders;
}
