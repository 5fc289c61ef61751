import type { z } from 'zod';
import { validationError } from '../errors.js';

/** Page information of a Relay connection (Relay Cursor Connections spec). */
export interface PageInfo {
  hasNextPage: boolean;
  hasPreviousPage: boolean;
  startCursor: string | null;
  endCursor: string | null;
}

/** A Relay connection page plus the list's total. */
export interface Connection<T> {
  edges: { cursor: string; node: T }[];
  pageInfo: PageInfo;
  totalCount: number;
}

/** An opaque keyset cursor: a row's sort position as base64url JSON. */
export function encodeCursor(position: unknown): string {
  return Buffer.from(JSON.stringify(position)).toString('base64url');
}

/**
 * Reads a cursor made by {@link encodeCursor}.
 * @throws {AppError} `VALIDATION` at `path` when it is not one of ours.
 */
export function decodeCursor<S extends z.ZodType>(cursor: string, schema: S, path: string): z.output<S> {
  try {
    return schema.parse(JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')));
  } catch {
    throw validationError(
      [{ path, message: 'is not a valid cursor' }],
      'The connection arguments are invalid.',
    );
  }
}

/**
 * A forward page from a keyset slice fetched with one row more than `size` (that extra row only tells
 * whether a next page exists).
 */
export function forwardConnection<T>(
  rows: readonly T[],
  size: number,
  afterGiven: boolean,
  positionOf: (row: T) => unknown,
  totalCount: number,
): Connection<T> {
  const edges = rows.slice(0, size).map((node) => ({ cursor: encodeCursor(positionOf(node)), node }));
  return {
    edges,
    pageInfo: {
      hasNextPage: rows.length > size,
      hasPreviousPage: afterGiven,
      startCursor: edges[0]?.cursor ?? null,
      endCursor: edges.at(-1)?.cursor ?? null,
    },
    totalCount,
  };
}
