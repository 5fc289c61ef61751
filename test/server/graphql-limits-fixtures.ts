import type { expect } from 'vitest';
import { graphqlLimits } from '../../src/server/graphql-limits.js';
import type { TestServer, TestTenant } from '../helpers/app.js';
import { recordStatements } from '../helpers/store.js';

/*
 * What the GraphQL limit tests share: deep reads, counting the statements a request runs, and the refusals
 * clients see (graphql-limits.test.ts, graphql-limits-production.test.ts).
 */

export const admin = ['instance_admin', 'connectivity_check'] as const;
const { maxDepth } = graphqlLimits;

/**
 * A read `depth` fields deep, the `__typename` leaf included, down the schema's own cycle
 * `customer → projects → edges → node → customer → …`.
 */
export function deepRead(depth: number): string {
  const cycle = ['projects', 'edges', 'node', 'customer'];
  const path = ['customer(id: $id)', ...Array.from({ length: depth - 2 }, (_, i) => cycle[i % cycle.length])];
  return `${path.join(' { ')} { __typename }${' }'.repeat(path.length - 1)}`;
}

/**
 * Runs `act` and collects the SQL statements the service executes meanwhile: every resolver that reads
 * runs one, so no statement means no resolver ran.
 */
export async function countStatements<T>(
  server: TestServer,
  act: () => Promise<T>,
): Promise<{ result: T; statements: number; sql: string[] }> {
  const { result, sql } = await recordStatements(server.app.services.db, act);
  return { result, statements: sql.length, sql };
}

/** A customer with one project, so that {@link deepRead} resolves all the way down. */
export async function customerWithProject(tenant: TestTenant): Promise<string> {
  const created = await tenant.api.graphql(
    'mutation ($input: CreateCustomerInput!) { createCustomer(input: $input) { customer { id } } }',
    { input: { name: 'Deep B.V.' } },
  );
  const id: string = created.data.createCustomer.customer.id;
  await tenant.api.graphql(
    'mutation ($input: CreateProjectInput!) { createProject(input: $input) { project { id } } }',
    { input: { customerId: id, name: 'Loop' } },
  );
  return id;
}

/** The depth refusal of a read one level past the limit; a fragment spread adds no level. */
export const tooDeepMessage = `Query depth limit of ${maxDepth} exceeded, found ${maxDepth + 1}.`;

/** A validation error as clients see it: a message and `GRAPHQL_VALIDATION_FAILED`. */
export const refused = (message: string | ReturnType<typeof expect.stringContaining>) => ({
  message,
  extensions: { code: 'GRAPHQL_VALIDATION_FAILED' },
});
