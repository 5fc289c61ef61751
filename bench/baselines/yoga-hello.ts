import { createServer } from 'node:http';
import { createSchema, createYoga } from 'graphql-yoga';

/*
 * The floor of GraphQL over Yoga: a stock graphql-yoga server (default settings and plugins) answering
 * `{ hello }` on node:http. Whatever the gateway's GraphQL path costs beyond this is the gateway's own.
 * Environment: PORT, HOST.
 */

const yoga = createYoga({
  schema: createSchema({
    typeDefs: 'type Query { hello: String! }',
    resolvers: { Query: { hello: () => 'world' } },
  }),
});

const server = createServer(yoga);
server.listen(Number(process.env.PORT ?? 4200), process.env.HOST ?? '127.0.0.1');
process.once('SIGTERM', () => {
  server.close();
  server.closeAllConnections();
  process.exit(0);
});
