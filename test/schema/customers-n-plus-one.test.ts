import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Json, startTestServer, type TestServer, type TestTenant, waitFor } from '../helpers/app.js';
import { countStoredRows, recordStatements, testStore } from '../helpers/store.js';
import { address, admin, createCustomer, createProject, createRequests } from './customers-fixtures.js';

describe('customers query without N+1', () => {
  let server: TestServer;
  const tenants = new Map<number, TestTenant>();

  const NESTED = `{ customers(first: 10) { edges { node {
    pricePlan { name }
    projects { edges { node { id customer { id } } } }
    availabilityRequests(first: 3) { totalCount edges { node { id products { id } sources { name } } } }
  } } } }`;

  beforeAll(async () => {
    // No outbox relay either: its polls would add statements to the counts.
    server = await startTestServer({ env: { EVENT_RELAY: 'off' } });
    for (const size of [5, 10]) {
      const tenant = await server.tenant({ roles: [...admin] });
      for (let index = 0; index < size; index += 1) {
        const customer = await createCustomer(tenant.api, { name: `Customer ${index}` });
        const project = await createProject(tenant.api, customer, 'First');
        await createProject(tenant.api, customer, 'Second');
        await createRequests(tenant.api, [
          { address, customerId: customer },
          { address, projectId: project },
        ]);
      }
      tenants.set(size, tenant);
    }
    const { db } = server.app.services;
    const pending = async () =>
      (await countStoredRows(db, 'availabilityRequests')) -
      (await countStoredRows(db, 'availabilityRequests', { status: 'completed' }));
    await waitFor(pending, (count) => count === 0);
    // The idle workers poll their queues; stopped, they cannot add statements to the count.
    await Promise.all([server.app.worker.stop(), server.app.orderWorker.stop()]);
  });
  afterAll(() => server.close());

  /** Runs the nested query for a tenant and counts the SQL statements executed meanwhile. */
  async function countStatements(size: number): Promise<{ result: Json; statements: number }> {
    const { result, sql } = await recordStatements(server.app.services.db, async () =>
      tenants.get(size)?.api.graphql(NESTED),
    );
    return { result, statements: sql.length };
  }

  it('when 5 and 10 customers with 2 projects and 2 requests each are listed with nested fields, then the SQL count is small and the same', async () => {
    const five = await countStatements(5);
    const ten = await countStatements(10);

    const id = { id: expect.any(String) };
    const request = {
      node: {
        ...id,
        products: expect.arrayContaining([id]),
        sources: expect.arrayContaining([{ name: 'KPN WBA' }]),
      },
    };
    const project = { node: { ...id, customer: id } };
    const node = {
      pricePlan: { name: 'Standard' },
      projects: { edges: [project, project] },
      availabilityRequests: { totalCount: 2, edges: [request, request] },
    };
    expect(five.result).toEqual({ data: { customers: { edges: Array(5).fill({ node }) } } });
    expect(ten.result).toEqual({ data: { customers: { edges: Array(10).fill({ node }) } } });
    // An N+1 would cost at least one statement per customer (10 or 20 more for the larger tenant). On SQLite
    // every load of a tick answers at once, so the counts are equal; on PostgreSQL two parents answered in
    // different round trips may split one child batch in two, whatever the number of customers.
    if (testStore === 'sqlite') expect(ten.statements).toBe(five.statements);
    expect(five.statements).toBeLessThanOrEqual(14);
    expect(ten.statements).toBeLessThanOrEqual(14);
  });
});
