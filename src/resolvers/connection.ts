import type { z } from 'zod';
import { validationError } from '../errors.js';

/** Page information of a Relay connection (Relay Cursor Connections spec). */
export interface PageInfo {
  hasNextPage: boolean;
  hasPreviousPage: boolean;
  startCursor: string | null;
  endCursor: string | null;
}

/** An edge of a Relay connection: a node and its opaque cursor. */
export interface Edge<T> {
  readonly node: T;
  readonly cursor: string;
}

/** A Relay connection page plus the list's total. */
export interface Connection<T> {
  edges: Edge<T>[];
  pageInfo: PageInfo;
  totalCount: number;
}

/** An opaque keyset cursor: a row's sort position as base64url JSON. */
export function encodeCursor(position: unknown): string {
  return Buffer.from(JSON.stringify(position)).toString('base64url');
}

/**
 * An edge whose cursor is encoded when it is read: most clients ask for the nodes and `pageInfo` only, and
 * a page of 25 cursors was about a twentieth of a GraphQL list request (`npm run bench`, graphql-list).
 */
class PositionedEdge<T> implements Edge<T> {
  constructor(
    readonly node: T,
    private readonly positionOf: (node: T) => unknown,
  ) {}

  get cursor(): string {
    return encodeCursor(this.positionOf(this.node));
  }
}

/** The edges of `nodes`, each cursor the {@link encodeCursor} of `positionOf(node)`, made when read. */
export function edgesOf<T>(nodes: readonly T[], positionOf: (node: T) => unknown): Edge<T>[] {
  return nodes.map((node) => new PositionedEdge(node, positionOf));
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
  const edges = edgesOf(rows.slice(0, size), positionOf);
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
