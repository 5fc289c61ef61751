import { graphql } from 'relay-runtime';

/** Live progress of the requests a page shows, over graphql-ws; each update refreshes the address fragment. */
export const requestProgressSubscription = graphql`
  subscription RequestProgressSubscription($ids: [ID!]) {
    availabilityRequestUpdated(ids: $ids) {
      id
      status
      networksProgressPercentage
      ...RequestAddress_availabilityRequest
    }
  }
`;
