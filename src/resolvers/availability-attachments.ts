import type { Context } from '../context.js';
import type {
  CustomerRecord,
  MonthlyLimitCheck,
  MonthlyLimitExceeded,
  NewAvailabilityRequest,
  ProjectRow,
} from '../db/rows.js';
import { AppError, type FieldProblem } from '../errors.js';
import type { AvailabilityRequestInput } from './availability-input.js';

/** Customers and projects looked up during one create call, so a batch reads each once. */
export interface AttachmentLookups {
  customers: Map<string, CustomerRecord | null>;
  projects: Map<string, ProjectRow | null>;
}

/** A fresh, empty lookup cache for one call. */
export function attachmentLookups(): AttachmentLookups {
  return { customers: new Map(), projects: new Map() };
}

async function cached<T>(
  cache: Map<string, T | null>,
  id: string,
  load: () => Promise<T | undefined>,
): Promise<T | null> {
  if (!cache.has(id)) cache.set(id, (await load()) ?? null);
  return cache.get(id) ?? null;
}

/**
 * The customer an element is for: its `customerId`, or the customer of its `projectId`. Ids of another
 * instance are "not found", exactly like unknown ones; a project of a different customer than the one
 * given is refused.
 */
export async function resolveAttachment(
  ctx: Context,
  instanceId: string,
  element: Pick<AvailabilityRequestInput, 'customerId' | 'projectId'>,
  path: string,
  lookups: AttachmentLookups,
): Promise<{ customer: CustomerRecord | null; projectId: string | null; problems: FieldProblem[] }> {
  const problems: FieldProblem[] = [];
  const customer = element.customerId
    ? await cached(lookups.customers, element.customerId, () =>
        ctx.db.findCustomer(instanceId, element.customerId ?? ''),
      )
    : null;
  if (element.customerId && !customer)
    problems.push({ path: `${path}/customerId`, message: 'customer was not found' });
  const project = element.projectId
    ? await cached(lookups.projects, element.projectId, () =>
        ctx.db.findProject(instanceId, element.projectId ?? ''),
      )
    : null;
  if (element.projectId && !project)
    problems.push({ path: `${path}/projectId`, message: 'project was not found' });
  if (project && element.customerId && project.customerId !== element.customerId) {
    problems.push({ path: `${path}/projectId`, message: 'belongs to another customer than customerId' });
  }
  const projectCustomer =
    project && !element.customerId
      ? await cached(lookups.customers, project.customerId, () =>
          ctx.db.findCustomer(instanceId, project.customerId),
        )
      : null;
  return { customer: customer ?? projectCustomer, projectId: project?.id ?? null, problems };
}

/** One monthly-limit check per customer of the batch that has a limit, with how many the batch adds. */
export function monthlyLimitChecks(
  requests: readonly NewAvailabilityRequest[],
  customers: ReadonlyMap<string, CustomerRecord | null>,
): MonthlyLimitCheck[] {
  const requested = new Map<string, number>();
  for (const request of requests) {
    if (request.customerId) requested.set(request.customerId, (requested.get(request.customerId) ?? 0) + 1);
  }
  return [...requested].flatMap(([customerId, count]) => {
    const limit = customers.get(customerId)?.customer.monthlyAvailabilityRequestLimit;
    return limit == null ? [] : [{ customerId, limit, requested: count }];
  });
}

/** The 429 for a batch that would take a customer past its monthly limit (DESIGN.md, "Monthly limit"). */
export function limitExceeded(
  exceeded: MonthlyLimitExceeded,
  customers: ReadonlyMap<string, CustomerRecord | null>,
): AppError {
  const name = customers.get(exceeded.customerId)?.customer.name ?? exceeded.customerId;
  const remaining = Math.max(0, exceeded.limit - exceeded.used);
  return new AppError(
    'LIMIT_EXCEEDED',
    `Customer "${name}" may have ${exceeded.limit} availability requests per calendar month (UTC); ` +
      `${remaining} remain this month and this call asks for ${exceeded.requested}. Nothing was created.`,
  );
}
