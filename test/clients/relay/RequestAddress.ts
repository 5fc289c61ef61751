import { graphql } from 'relay-runtime';

/** The address line of a request, down to its coordinates: the deepest field a page reads. */
export const requestAddressFragment = graphql`
  fragment RequestAddress_availabilityRequest on AvailabilityRequest {
    id
    status
    networksProgressPercentage
    address {
      postalCode
      city
      coordinates {
        latitude
        longitude
      }
    }
  }
`;
