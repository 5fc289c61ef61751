import { z } from 'zod';
import type { Context } from '../context.js';
import type { AvailabilityRequestRecord, RequestPosition } from '../db/rows.js';
import { requireViewer } from './authentication.js';
import { type Connection, decodeCursor, edgesOf } from './connection.js';
import { loadersFor } from './loaders.js';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from './pagination.js';
import { parseInput } from './validation.js';

/** A page of requests as a Relay connection. */
export type RecordConnection = Connection<AvailabilityRequestRecord>;

const positionSchema = z
  .object({ createdAt: z.number().int(), id: z.string().min(1) })
  .transform((position): RequestPosition => ({ createdAt: new Date(position.createdAt), id: position.id }));

/** What a cursor holds: the row's position in the newest-first order. */
function positionOf({ request }: AvailabilityRequestRecord) {
  return { createdAt: request.createdAt.getTime(), id: request.id };
}

const count = z.number().int().min(0).max(MAX_PAGE_SIZE);
const connectionArgs = z
  .object({
    first: count.nullish(),
    after: z.string().nullish(),
    last: count.nullish(),
    before: z.string().nullish(),
  })
  .refine((args) => args.first == null || args.last == null, 'give first or last, not both')
  .refine((args) => !(args.first != null && args.before != null), 'before goes with last')
  .refine((args) => !(args.last != null && args.after != null), 'after goes with first');

/**
 * The caller's requests as a Relay connection, newest first, with keyset cursors so that requests
 * created while a client pages never shift its pages. `first` / `last` at most 100, default 25.
 * With `scope.customerId`, only that customer's requests.
 *
 * @throws {AppError} `VALIDATION` for out-of-range counts, mixed directions or a malformed cursor.
 */
export async function availabilityRequestConnection(
  ctx: Context,
  input: unknown,
  scope: { customerId?: string } = {},
): Promise<RecordConnection> {
  const viewer = requireViewer(ctx, ['connectivity_check']);
  const args = parseInput(connectionArgs, input, 'The connection arguments are invalid.');
  const customerId = scope.customerId ?? null;
  if (customerId && args.after == null && args.before == null && args.last == null) {
    // A customer's first page is batch-loaded with every other customer's in the same operation.
    const size = args.first ?? DEFAULT_PAGE_SIZE;
    const loaders = loadersFor(ctx);
    const [rows, totalCount] = await Promise.all([
      loaders.latestRequestsOfCustomer(size + 1).load(customerId),
      loaders.requestCountOfCustomer.load(customerId),
    ]);
    return toConnection(rows, size, null, false, totalCount);
  }
  const totalCount = await ctx.db.countAvailabilityRequests(viewer.instanceId, customerId);
  const backwards = args.last != null;
  const size = (backwards ? args.last : args.first) ?? DEFAULT_PAGE_SIZE;
  const cursor = backwards ? args.before : args.after;
  const from = cursor ? decodeCursor(cursor, positionSchema, backwards ? '/before' : '/after') : null;
  const rows = await ctx.db.sliceAvailabilityRequests(viewer.instanceId, {
    from,
    direction: backwards ? 'newer' : 'older',
    limit: size + 1,
    customerId,
  });
  return toConnection(rows, size, from, backwards, totalCount);
}

function toConnection(
  rows: AvailabilityRequestRecord[],
  size: number,
  from: RequestPosition | null,
  backwards: boolean,
  totalCount: number,
): RecordConnection {
  const more = rows.length > size;
  const page = rows.slice(0, size);
  if (backwards) page.reverse();
  const edges = edgesOf(page, positionOf);
  return {
    edges,
    pageInfo: {
      hasNextPage: backwards ? from !== null : more,
      hasPreviousPage: backwards ? more : from !== null,
      startCursor: edges[0]?.cursor ?? null,
      endCursor: edges.at(-1)?.cursor ?? null,
    },
    totalCount,
  };
}
