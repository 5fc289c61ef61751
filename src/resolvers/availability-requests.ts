import pLimit from 'p-limit';
import type { Context } from '../context.js';
import type {
  AvailabilityRequestRecord,
  NewAvailabilityRequest,
  ProductRow,
  ProductSource,
  SourceOutcome,
  SourceRow,
  StoredAvailabilityRequestRecord,
} from '../db/rows.js';
import { AppError, type FieldProblem, notFound, validationError } from '../errors.js';
import { sourceMatchesFilters } from '../gathering/filters.js';
import { currentTraceContext } from '../telemetry/trace-context.js';
import { resolveAddress } from './address-resolution.js';
import { requireViewer } from './authentication.js';
import {
  attachmentLookups,
  limitExceeded,
  monthlyLimitChecks,
  resolveAttachment,
} from './availability-attachments.js';
import { rememberRequests } from './availability-events.js';
import { availabilityRequestBatchSchema, filterProblems, storedFilters } from './availability-input.js';
import { type FilterValueSets, filterValueSets } from './availability-options.js';
import { loadersFor } from './loaders.js';
import { type Pagination, pageInput, pageOffset, pagination } from './pagination.js';
import { outcomeSource } from './product-sources.js';
import { parseInput } from './validation.js';

/** Result of a create call: the created requests in input order and a confirmation message. */
export interface CreatedAvailabilityRequests {
  records: StoredAvailabilityRequestRecord[];
  message: string;
}

/**
 * Creates one availability request per element and queues one gathering task per matching source
 * (enabled, answering for the address's country, inside the network filter). Every element is checked
 * first — address fields against its country's descriptors, filter values against its country's options,
 * customer and project ids of the caller's instance — and one invalid element rejects the whole batch,
 * writing nothing. Each request is priced with its customer's plan (directly or via its project), else the
 * instance default.
 *
 * @param input the batch in camelCase (REST maps the contract's snake_case keys).
 * @throws {AppError} `VALIDATION` with a problem per invalid field (`/0/address/postalCode`);
 *   `LIMIT_EXCEEDED` when a customer's monthly limit would be passed (nothing is created).
 */
export async function createAvailabilityRequests(
  ctx: Context,
  input: unknown,
): Promise<CreatedAvailabilityRequests> {
  const viewer = requireViewer(ctx, ['connectivity_check']);
  const batch = parseInput(availabilityRequestBatchSchema, input, 'The availability requests are invalid.');
  const defaultPlan = await ctx.db.findDefaultPricePlan(viewer.instanceId);
  if (!defaultPlan)
    throw new AppError('CONFLICT', 'The instance has no default price plan; create one first.');
  const lookups = attachmentLookups();
  const countries = countryCatalogs(ctx, viewer.instanceId);
  const problems: FieldProblem[] = [];
  const resolved: NewAvailabilityRequest[] = [];
  // Geocoding may call out (PDOK): a few addresses at a time, results kept in input order.
  const limit = pLimit(8);
  const elements = await Promise.all(
    batch.map((element, index) =>
      limit(async () => ({
        element,
        index,
        ...(await resolveAddress(ctx, element.address, `/${index}/address`)),
      })),
    ),
  );
  for (const { element, index, address, problems: addressProblems } of elements) {
    problems.push(...addressProblems);
    const country = address.countryCode === '' ? null : countries.of(address.countryCode);
    const filters = storedFilters(element);
    const filtered = Object.values(filters).some((values) => values.length > 0);
    if (country && filtered) {
      problems.push(...filterProblems(filters, await country.filterValues(), `/${index}`));
    } else if (filtered) {
      problems.push({
        path: `/${index}/address`,
        message: 'filters need a country: give address.countryCode, or coordinates inside a known country',
      });
    }
    const attachment = await resolveAttachment(ctx, viewer.instanceId, element, `/${index}`, lookups);
    problems.push(...attachment.problems);
    const sourceIds = ((await country?.sources()) ?? [])
      .filter((source) => sourceMatchesFilters(source.network, filters))
      .map((source) => source.id);
    resolved.push({
      address,
      filters,
      customerId: attachment.customer?.customer.id ?? null,
      projectId: attachment.projectId,
      pricePlanId: attachment.customer?.customer.pricePlanId ?? defaultPlan.id,
      sourceIds,
    });
  }
  if (problems.length > 0)
    throw validationError(problems, 'The availability requests are invalid; none was created.');
  const now = ctx.clock.now();
  const result = await ctx.db.insertAvailabilityRequests({
    instanceId: viewer.instanceId,
    userId: viewer.userId,
    now,
    requests: resolved,
    limits: monthlyLimitChecks(resolved, lookups.customers),
    monthStart: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1)),
    // The gathering tasks continue this request's trace in whichever worker runs them (issue 37).
    traceContext: currentTraceContext(),
  });
  if ('exceeded' in result) throw limitExceeded(result.exceeded, lookups.customers);
  const { records } = result;
  // Their `created` events were written with them; the relay publishes them now, from these records.
  rememberRequests(ctx, records);
  ctx.events.written();
  ctx.wakeGathering();
  const count = records.length;
  return {
    records,
    message: `${count} availability request${count === 1 ? '' : 's'} created; gathering started.`,
  };
}

/** What a batch needs of one country's catalogue, each part read once per batch and only when asked. */
interface CountryCatalog {
  /** The instance's enabled sources for the country. */
  sources(): Promise<SourceRow[]>;
  /** The filter values those sources offer; read only for elements that carry filters. */
  filterValues(): Promise<FilterValueSets>;
}

/** Per-batch memo of {@link CountryCatalog}s by country code. */
function countryCatalogs(ctx: Context, instanceId: string): { of(countryCode: string): CountryCatalog } {
  const catalogs = new Map<string, CountryCatalog>();
  return {
    of(countryCode) {
      let catalog = catalogs.get(countryCode);
      if (!catalog) {
        let sources: Promise<SourceRow[]> | undefined;
        let values: Promise<FilterValueSets> | undefined;
        const memo: CountryCatalog = {
          sources: () => {
            sources ??= ctx.db.listEnabledSources(instanceId, countryCode);
            return sources;
          },
          filterValues: () => {
            values ??= memo.sources().then((rows) => filterValueSets(ctx, rows));
            return values;
          },
        };
        catalog = memo;
        catalogs.set(countryCode, catalog);
      }
      return catalog;
    },
  };
}

/**
 * A page of the caller's requests, newest first (ties by id).
 * @param input `page` (1-based, default 1) and `pageSize` (1–100, default 25); strings are accepted.
 * @throws {AppError} `VALIDATION` for a page or size out of range.
 */
export async function listAvailabilityRequests(
  ctx: Context,
  input: { page?: unknown; pageSize?: unknown },
): Promise<{ records: AvailabilityRequestRecord[]; pagination: Pagination }> {
  const viewer = requireViewer(ctx, ['connectivity_check']);
  const page = parseInput(pageInput, input, 'The page parameters are invalid.');
  const totalItems = await ctx.db.countAvailabilityRequests(viewer.instanceId);
  const records = await ctx.db.listAvailabilityRequestsPage(viewer.instanceId, {
    offset: pageOffset(page),
    limit: page.pageSize,
  });
  return { records, pagination: pagination(page, totalItems) };
}

/**
 * One of the caller's requests.
 * @throws {AppError} `NOT_FOUND` for an unknown id and, identically, for another instance's id.
 */
export async function getAvailabilityRequest(ctx: Context, id: string): Promise<AvailabilityRequestRecord> {
  const viewer = requireViewer(ctx, ['connectivity_check']);
  const record = await ctx.db.findAvailabilityRequest(viewer.instanceId, id);
  if (!record) throw notFound('Availability request', id);
  return record;
}

/** Same as {@link getAvailabilityRequest} but null when not found (GraphQL's nullable field). */
export async function findAvailabilityRequestForViewer(
  ctx: Context,
  id: string,
): Promise<AvailabilityRequestRecord | null> {
  try {
    return await getAvailabilityRequest(ctx, id);
  } catch (error) {
    if (error instanceof AppError && error.code === 'NOT_FOUND') return null;
    throw error;
  }
}

/** The products gathered so far for one of the caller's requests. */
export async function availabilityRequestProducts(ctx: Context, requestId: string): Promise<ProductRow[]> {
  requireViewer(ctx, ['connectivity_check']);
  return loadersFor(ctx).productsOfRequest.load(requestId);
}

/** Per-source outcomes (status, attempts, error) of one of the caller's requests. */
export async function availabilityRequestSourceOutcomes(
  ctx: Context,
  requestId: string,
): Promise<SourceOutcome[]> {
  requireViewer(ctx, ['connectivity_check']);
  return loadersFor(ctx).sourceOutcomesOfRequest.load(requestId);
}

/**
 * The source that offered a product of one of the caller's requests (issue 49), from the request's source
 * outcomes (batched: one read for every product of the operation); null when its task is gone.
 */
export async function productSource(ctx: Context, product: ProductRow): Promise<ProductSource | null> {
  const outcomes = await availabilityRequestSourceOutcomes(ctx, product.availabilityRequestId);
  const outcome = outcomes.find((each) => each.sourceId === product.sourceId);
  return outcome ? outcomeSource(outcome) : null;
}

/**
 * Gathering progress: finished ÷ matching sources × 100, rounded to two decimals (DESIGN.md, "Progress");
 * 100 when no source matched.
 */
export function progressPercentage(request: { sourcesTotal: number; sourcesFinished: number }): number {
  if (request.sourcesTotal === 0) return 100;
  return Math.round((request.sourcesFinished * 10_000) / request.sourcesTotal) / 100;
}
