// The few reads the REST API does not offer (a customer's quotes, a quote's orders), asked of the GraphQL
// endpoint on the same origin with the same session.

import { ApiError, api } from './api.js';

/**
 * Runs a GraphQL operation.
 * @param {string} query
 * @param {Record<string, unknown>} [variables]
 * @returns {Promise<any>} the `data` of the answer
 * @throws {ApiError} when the answer carries errors (their first message as the detail), or as `api` throws
 */
export async function graphql(query, variables = {}) {
  const document = await api('POST', '/graphql', { query, variables });
  if (Array.isArray(document?.errors) && document.errors.length > 0) {
    throw new ApiError(200, { detail: document.errors[0]?.message ?? 'The query failed.' });
  }
  return document?.data ?? null;
}

const QUOTES_PAGE = `query DashboardQuotes($after: String) {
  quotes(first: 100, after: $after) {
    edges { node { id name quoteNumber expirationDate totalProducts customer { id } } }
    pageInfo { hasNextPage endCursor }
  }
}`;

/** Pages of quotes read at most when looking for a customer's: the newest 500 of the instance. */
const MAX_QUOTE_PAGES = 5;

/**
 * The customer's quotes that may still be ordered (not past their expiration date, UTC), newest first,
 * among the instance's newest 500.
 * @param {string} customerId
 * @returns {Promise<{id: string, name: string, quoteNumber: string, expirationDate: string, totalProducts: number}[]>}
 */
export async function openQuotesOfCustomer(customerId) {
  const today = new Date().toISOString().slice(0, 10);
  const found = [];
  let after = null;
  for (let page = 0; page < MAX_QUOTE_PAGES; page += 1) {
    const data = await graphql(QUOTES_PAGE, { after });
    const connection = data?.quotes;
    for (const edge of connection?.edges ?? []) {
      const quote = edge.node;
      if (quote.customer?.id === customerId && quote.expirationDate >= today) found.push(quote);
    }
    if (!connection?.pageInfo?.hasNextPage) break;
    after = connection.pageInfo.endCursor;
  }
  return found;
}

const QUOTE_ORDERS = `query DashboardQuoteOrders($id: ID!) {
  quote(id: $id) { orders { id status createdAt } }
}`;

/**
 * The quote's orders, newest first, with their status in the REST spelling (`in_progress`).
 * @param {string} quoteId
 * @returns {Promise<{id: string, status: string, createdAt: string}[]>}
 */
export async function ordersOfQuote(quoteId) {
  const data = await graphql(QUOTE_ORDERS, { id: quoteId });
  return (data?.quote?.orders ?? []).map((order) => ({
    ...order,
    status: String(order.status).toLowerCase(),
  }));
}
