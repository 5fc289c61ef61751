import { graphql } from 'relay-runtime';

/**
 * Not a real page: the abuse the depth limit exists for, written as a Relay front-end would — a query
 * that follows the schema's cycle customer → projects → customer → … through fragments, 13 levels deep.
 */
export const projectCycleQuery = graphql`
  query ProjectCycleQuery($id: ID!) {
    customer(id: $id) {
      ...ProjectCycle_customer
    }
  }
`;

export const projectCycleFragment = graphql`
  fragment ProjectCycle_customer on Customer {
    projects {
      edges {
        node {
          customer {
            projects {
              edges {
                node {
                  ...ProjectCycle_project
                }
              }
            }
          }
        }
      }
    }
  }
`;

export const projectCycleProjectFragment = graphql`
  fragment ProjectCycle_project on Project {
    customer {
      projects {
        edges {
          node {
            name
          }
        }
      }
    }
  }
`;
