/**
 * Limits on a GraphQL document, checked while it is parsed and validated — before any resolver runs
 * (issue 7, "GraphQL limits"). Sized against every operation in the README and the test suite, measured
 * with graphql-armor's own counting: the largest has depth 8, 2 aliases, no directive, 101 tokens,
 * 634 characters and cost ≈4,900. Variables are not counted by any of them: large inputs belong there.
 */
export const graphqlLimits = {
  /**
   * Nesting of fields (graphql-armor counts a fragment spread as levels too). The deepest useful shape
   * is a connection inside a connection down to a nested object's scalar (`customers.edges.node
   * .availabilityRequests.edges.node.address.coordinates.latitude`, 9); 10 allows it, while the schema's
   * cycles (`customer → projects → edges → node → customer → …`) cannot be followed round more than twice.
   */
  maxDepth: 10,
  /**
   * Aliased fields per operation (`__typename` is free). The tests use 2, to read two records side by
   * side; 15 lets a client fetch a handful of records by id in one request and refuses alias
   * amplification (hundreds of `node(id:)` reads or mutation calls in one request).
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
   * graphql-armor's cost: 1 a scalar, 2 an object, ×1.5 per level, × a literal `first`/`last`. The
   * costliest single page is `quotes(first: 100)` with every field (≈49,500); twice that lets one full
   * page of any list pass with room for the schema to grow, while a page of pages — 100 customers ×
   * 100 requests each, ≈1,000,000 — is refused. `test/server/graphql-limits.test.ts` checks every
   * full page against it. graphql-armor counts a page size given as a variable as 1, so nested pages
   * sized by variables are bounded only by the resolvers' cap of 100 a page.
   */
  maxCost: 100_000,
} as const;
