/* What the GraphQL tests of customers and price plans share (customers, customers-n-plus-one, price-plans). */
import type { ApiClient, Json } from '../helpers/app.js';

export const address = { countryCode: 'NL', postalCode: '1016XA', houseNumber: '206' };
export const admin = ['instance_admin', 'connectivity_check'] as const;

const MUTATIONS = {
  customer: `mutation ($input: CreateCustomerInput!) { createCustomer(input: $input) { customer { id } } }`,
  project: `mutation ($input: CreateProjectInput!) { createProject(input: $input) { project { id } } }`,
  requests: `mutation ($input: [AvailabilityRequestInput!]!) {
    createAvailabilityRequests(input: $input) { availabilityRequests { id } }
  }`,
};

/** Runs one of the fixture mutations and answers its payload's data. */
async function mutate(api: ApiClient, mutation: keyof typeof MUTATIONS, input: unknown): Promise<Json> {
  const result = await api.graphql(MUTATIONS[mutation], { input });
  if (!result.data) throw new Error(`${mutation} not created: ${JSON.stringify(result.errors)}`);
  return Object.values(result.data)[0];
}
export const createCustomer = async (api: ApiClient, input: Record<string, unknown>): Promise<string> =>
  (await mutate(api, 'customer', input)).customer.id;
export const createProject = async (api: ApiClient, customerId: string, name: string): Promise<string> =>
  (await mutate(api, 'project', { customerId, name })).project.id;
export const createRequests = async (api: ApiClient, input: Record<string, unknown>[]): Promise<string[]> =>
  (await mutate(api, 'requests', input)).availabilityRequests.map((request: Json) => request.id);
