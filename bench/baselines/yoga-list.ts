import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { useGraphQlJit } from '@envelop/graphql-jit';
import { createSchema, createYoga } from 'graphql-yoga';

/*
 * The floor of the gateway's GraphQL list over Yoga (issue 50): a stock graphql-yoga server with
 * graphql-jit (the gateway's executor) answering `graphql-list`'s query from the very page the gateway
 * answered, held in memory — no database, no authentication, no limits, no resolver of ours. What the
 * gateway's GraphQL list costs beyond this server is the gateway's own; what this server costs beyond the
 * gateway's REST list of the same page is Yoga's.
 * Environment: PORT, HOST, BENCH_YOGA_PAGE (a file holding the gateway's GraphQL answer).
 */

const answer = JSON.parse(readFileSync(process.env.BENCH_YOGA_PAGE ?? '', 'utf8')) as {
  data: { availabilityRequests: unknown };
};
const page = answer.data.availabilityRequests;

/** The gateway's types as far as the query reads them; enums and `DateTime` as the strings they are sent as. */
const typeDefs = /* GraphQL */ `
  type Query {
    availabilityRequests(first: Int): AvailabilityRequestConnection!
  }
  type AvailabilityRequestConnection {
    totalCount: Int!
    edges: [AvailabilityRequestEdge!]!
  }
  type AvailabilityRequestEdge {
    node: AvailabilityRequest!
  }
  type AvailabilityRequest {
    id: ID!
    createdAt: String!
    updatedAt: String!
    status: String!
    networksProgressPercentage: Float!
    address: Address!
    filters: AvailabilityRequestFilters!
  }
  type Address {
    id: ID!
    street: String!
    city: String!
    continentCode: String!
    countryCode: String!
    postalCode: String!
    houseNumber: String!
    houseNumberAddition: String!
    coordinates: Coordinates
  }
  type Coordinates {
    latitude: Float!
    longitude: Float!
  }
  type AvailabilityRequestFilters {
    contractTerms: [Int!]!
    connectionTypes: [String!]!
    bandwidths: [Bandwidth!]!
    technologyTypes: [String!]!
    networks: [String!]!
  }
  type Bandwidth {
    download: Int!
    upload: Int!
  }
`;

const yoga = createYoga({
  schema: createSchema({ typeDefs, resolvers: { Query: { availabilityRequests: () => page } } }),
  plugins: [useGraphQlJit()],
});

const server = createServer(yoga);
server.listen(Number(process.env.PORT ?? 4201), process.env.HOST ?? '127.0.0.1');
process.once('SIGTERM', () => {
  server.close();
  server.closeAllConnections();
  process.exit(0);
});
