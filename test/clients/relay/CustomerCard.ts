import { graphql } from 'relay-runtime';

/**
 * One customer's card with its latest requests: a `@connection` that pages through `node(id:)`, the
 * refetch query Relay generates for a `@refetchable` fragment on a `Node` type.
 */
export const customerCardFragment = graphql`
  fragment CustomerCard_customer on Customer
  @argumentDefinitions(requestCount: { type: "Int", defaultValue: 5 }, requestCursor: { type: "String" })
  @refetchable(queryName: "CustomerCardRefetchQuery") {
    id
    name
    availabilityRequests(first: $requestCount, after: $requestCursor)
      @connection(key: "CustomerCard_availabilityRequests") {
      edges {
        node {
          id
          ...RequestAddress_availabilityRequest
        }
      }
    }
  }
`;
