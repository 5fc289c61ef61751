import { graphql } from 'relay-runtime';

/** The customer list component: a `@connection` paginated forwards with `usePaginationFragment`. */
export const customerListFragment = graphql`
  fragment CustomerList_query on Query
  @argumentDefinitions(count: { type: "Int", defaultValue: 10 }, cursor: { type: "String" })
  @refetchable(queryName: "CustomerListPaginationQuery") {
    customers(first: $count, after: $cursor) @connection(key: "CustomerList_customers") {
      totalCount
      edges {
        node {
          id
          ...CustomerCard_customer
        }
      }
    }
  }
`;
