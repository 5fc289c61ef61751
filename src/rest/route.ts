/** The shape of one REST route: what the router matches and calls. */
import type { Context } from '../context.js';

/** What a route handler gets: the context, path parameters, query parameters and the parsed JSON body. */
export interface RouteInput {
  ctx: Context;
  params: Record<string, string>;
  query: URLSearchParams;
  body: unknown;
}

/** A documented REST path (contract, "Endpoints"), mapped to a resolver and shaped as the contract says. */
export interface Route {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** Path with `:name` parameters. */
  path: string;
  /** Whether the route needs an auth token (every route but authentication does). */
  authenticated: boolean;
  /** Whether the route reads a JSON body. */
  body: boolean;
  /**
   * Whether the route hands out an `sse_jwt`: its successful responses then carry the Mercure hub's
   * discovery `Link` header.
   */
  eventStream?: true;
  /** The status and document to answer; a 204 answers no body (`body` is then ignored). */
  handle(input: RouteInput): Promise<{ status: number; body: unknown }>;
}
