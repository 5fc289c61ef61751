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
