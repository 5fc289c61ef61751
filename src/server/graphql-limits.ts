/**
 * Limits on a GraphQL document, checked while it is parsed and validated — before any resolver runs
 * (issue 7, "GraphQL limits"; issue 15, "Real clients"). Depth and cost are measured over what executes:
 * fragments are inlined first, so a spread adds no level and its fields cost what they would inline, and a
 * query written with colocated fragments measures as its inline form.
 *
 * Sized against every operation in the README and the test suite, measured with graphql-armor's own
 * counting, and against the operations the Relay compiler writes for a Relay front-end
 * (`test/clients/relay/`: one fragment per component, `@connection` pagination, a `node(id:)` refetch):
 *
 * | operation                                      | depth | aliases | tokens | characters | cost   |
 * |------------------------------------------------|-------|---------|--------|------------|--------|
 * | largest inline operation (README, tests)       | 8     | 2       | 101    | 634        | ≈4,900 |
 * | Relay page `CustomersPageQuery` (3 fragments)  | 9     | 0       | 105    | 878        | ≈2,300 |
 * | Relay `@connection` pagination query           | 9     | 0       | 106    | 891        | ≈2,300 |
 * | Relay `node(id:)` refetch of a customer card   | 7     | 0       | 91     | 720        | ≈150   |
 *
 * Variables are not counted by any of them: large inputs belong there.
 */
export const graphqlLimits = {
  /**
   * Nesting of fields, counted after fragments are inlined. The deepest useful shape is a connection
   * inside a connection down to a nested object's scalar (`customers.edges.node.availabilityRequests
   * .edges.node.address.coordinates.latitude`, 9) — Relay's `CustomersPageQuery` reaches it through two
   * fragment spreads; 10 allows it, while the schema's cycles (`customer → projects → edges → node →
   * customer → …`) cannot be followed round more than twice, written inline or through fragments.
   */
  maxDepth: 10,
  /**
   * Aliased fields per operation, counted again at each spread of a fragment (`__typename` is free). The
   * tests use 2, to read two records side by side; 15 lets a client fetch a handful of records by id in
   * one request and refuses alias amplification (hundreds of `node(id:)` reads or mutation calls in one
   * request).
   */
  maxAliases: 15,
  /**
   * Directives per operation. No documented operation uses one; 10 leaves room for `@include`/`@skip`
   * on several conditional blocks and refuses directive overloading.
   */
  maxDirectives: 10,
  /**
   * Lexical tokens of the document (comments and whitespace are not tokens). About 10× the largest
   * documented operation (101) and 6× GraphiQL's introspection query (163).
   */
  maxTokens: 1_000,
  /**
   * Characters of the document: what the token limit does not see (whitespace, comments). 15,000 holds
   * 1,000 tokens of generously indented GraphQL (GraphiQL's introspection query is 12 characters a token).
   */
  maxCharacters: 15_000,
  /**
   * graphql-armor's cost: 1 a scalar, 2 an object, ×1.5 per level, × a literal `first`/`last`; a fragment
   * costs at each of its spreads at least what its fields would cost inline, so spreading one fragment
   * many times multiplies its cost. The costliest single page is `quotes(first: 100)` with every field
   * three levels deep, its orders and their lines included (≈120,200); twice that lets one full page of any
   * list pass with room for the schema to grow, while a page of pages — 100 customers × 100 requests each,
   * ≈1,000,000 — is refused. `test/server/graphql-limits.test.ts` checks every
   * full page against it. graphql-armor counts a page size given as a variable as 1, so nested pages
   * sized by variables are bounded only by the resolvers' cap of 100 a page.
   */
  maxCost: 250_000,
} as const;
