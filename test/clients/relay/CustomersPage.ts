import { graphql } from 'relay-runtime';

/**
 * The page of a Relay front-end that lists customers with their latest requests: one query that only
 * spreads its components' fragments, as Relay writes every page. Compiled by `relay-compiler` into
 * `__generated__/` (see `test/clients/relay.test.ts`); this file is a source for the compiler, never run.
 */
export const customersPageQuery = graphql`
  query CustomersPageQuery($count: Int!, $cursor: String) {
    ...CustomerList_query @arguments(count: $count, cursor: $cursor)
  }
`;
