// One quote's page (`#/quotes/<id>`): its customer, lines, totals and validity, the orders placed for it,
// and "Place order".

import { ApiError, api, SignedOutError } from './api.js';
import { $, h } from './dom.js';
import { formatBandwidth, formatDay, formatMoney, formatTerm, ORDER_STATUS_LABELS } from './format.js';
import { ordersOfQuote } from './graphql.js';
import { renderPlaceOrder, resetPlaceOrder } from './place-order.js';
import { showError } from './problems.js';

/** Statuses of an order that keep its quote from being ordered again (a failed or cancelled one does not). */
const BLOCKING_STATUSES = ['pending', 'submitted', 'in_progress', 'completed', 'partially_completed'];

/** @type {string | null} the quote shown */
let quoteId = null;
let seq = 0;

/**
 * Shows a quote, read afresh (its orders may have changed since it was last shown).
 * @param {string} id
 */
export async function showQuotePage(id) {
  if (quoteId !== id) {
    quoteId = id;
    $('quote-title').textContent = 'Loading…';
    $('quote-sub').textContent = id;
    $('quote-body').replaceChildren(h('p', { class: 'muted loading', text: 'Loading the quote…' }));
    $('quote-error').hidden = true;
    resetPlaceOrder();
  }
  const mine = ++seq;
  try {
    const [document, orders] = await Promise.all([
      api('GET', `/quotes/${encodeURIComponent(id)}`),
      ordersOfQuote(id),
    ]);
    if (mine !== seq || quoteId !== id) return;
    $('quote-error').hidden = true;
    render(document.data, orders);
  } catch (error) {
    if (error instanceof SignedOutError || mine !== seq) return;
    if (error instanceof ApiError && error.status === 404) $('quote-title').textContent = 'Not found';
    $('quote-body').replaceChildren();
    showError($('quote-error'), error);
  }
}

/** Stops showing a quote (on leaving its page or signing out). */
export function hideQuotePage() {
  seq += 1;
  quoteId = null;
  resetPlaceOrder();
}

/**
 * @param {any} quote the quote document
 * @param {{id: string, status: string, createdAt: string}[]} orders
 */
function render(quote, orders) {
  $('quote-title').textContent = `${quote.name}`;
  $('quote-sub').textContent = `Quote ${quote.quote_number} for ${quote.customer?.name ?? 'a customer'}`;
  const today = new Date().toISOString().slice(0, 10);
  const expired = quote.expiration_date < today;
  const blocking = orders.find((order) => BLOCKING_STATUSES.includes(order.status));
  const products = Array.isArray(quote.products) ? quote.products : [];
  const sections = [
    summary(quote, expired),
    h(
      'section',
      { class: 'detail-section', 'aria-labelledby': 'quote-lines-title' },
      h('h2', { id: 'quote-lines-title', text: `Lines (${products.length})` }),
      linesTable(quote, products),
    ),
    orders.length > 0 ? ordersSection(orders) : null,
  ];
  $('quote-body').replaceChildren(...sections.filter((node) => node !== null));
  renderPlaceOrder(
    quote.id,
    expired
      ? `This quote expired on ${formatDay(quote.expiration_date)}: make a new one to order.`
      : products.length === 0
        ? 'This quote has no lines to order.'
        : blocking
          ? 'This quote has been ordered: see its order above.'
          : null,
  );
}

function summary(quote, expired) {
  return h(
    'div',
    { class: 'detail-summary' },
    h(
      'dl',
      { class: 'stats' },
      h(
        'div',
        {},
        h('dt', { text: 'Customer' }),
        h('dd', { class: 'stat-text', 'data-testid': 'quote-customer', text: quote.customer?.name ?? '–' }),
      ),
      h(
        'div',
        {},
        h('dt', { text: 'Monthly' }),
        h('dd', { 'data-testid': 'quote-total-mrc', text: formatMoney(quote.total_mrc, quote.currency) }),
      ),
      h(
        'div',
        {},
        h('dt', { text: 'One-off' }),
        h('dd', { 'data-testid': 'quote-total-nrc', text: formatMoney(quote.total_nrc, quote.currency) }),
      ),
      h(
        'div',
        {},
        h('dt', { text: expired ? 'Expired on' : 'Valid until' }),
        h(
          'dd',
          { class: 'stat-text', 'data-testid': 'quote-validity' },
          h('time', { datetime: quote.expiration_date, text: formatDay(quote.expiration_date) }),
          expired
            ? h('span', { class: 'badge badge-small', 'data-status': 'failed', text: 'Expired' })
            : null,
        ),
      ),
    ),
    h(
      'p',
      { class: 'muted small detail-meta' },
      `Valid ${quote.validity_days} days · ${quote.currency}`,
      quote.reference_number ? ` · Reference ${quote.reference_number}` : '',
      ' · ID ',
      h('code', { text: quote.id }),
    ),
  );
}

function linesTable(quote, products) {
  if (products.length === 0) return h('p', { class: 'muted', text: 'No lines yet.' });
  const cell = (label, className, text) => h('td', { 'data-label': label, class: className, text });
  return h(
    'div',
    { class: 'table-scroll' },
    h(
      'table',
      { class: 'products-table quote-lines', 'data-testid': 'quote-lines' },
      h('caption', { class: 'visually-hidden', text: 'The quote’s lines, with the totals last.' }),
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          ['Product', 'Network', 'Bandwidth', 'Term', 'Monthly', 'One-off'].map((label, index) =>
            h(
              'th',
              { scope: 'col', class: index >= 2 ? 'num' : null },
              h('span', { class: 'th-label', text: label }),
            ),
          ),
        ),
      ),
      h(
        'tbody',
        {},
        products.map((line) =>
          h(
            'tr',
            { 'data-testid': 'quote-line', 'data-line-id': line.id },
            cell('Product', 'p-network strong', line.name),
            cell('Network', 'p-technology', line.network ?? '–'),
            cell('Bandwidth', 'p-bandwidth num', line.bandwidth ? formatBandwidth(line.bandwidth) : '–'),
            cell('Term', 'p-term num', line.contract_term ? formatTerm(line.contract_term) : '–'),
            cell('Monthly', 'p-mrc num strong', formatMoney(line.mrc, line.currency)),
            cell('One-off', 'p-nrc num', formatMoney(line.nrc, line.currency)),
          ),
        ),
      ),
      h(
        'tfoot',
        {},
        h(
          'tr',
          {},
          h('th', { scope: 'row', colspan: '4', text: 'Total' }),
          h('td', { class: 'num strong', text: formatMoney(quote.total_mrc, quote.currency) }),
          h('td', { class: 'num strong', text: formatMoney(quote.total_nrc, quote.currency) }),
        ),
      ),
    ),
  );
}

function ordersSection(orders) {
  return h(
    'section',
    { class: 'detail-section', 'aria-labelledby': 'quote-orders-title' },
    h('h2', { id: 'quote-orders-title', text: 'Orders of this quote' }),
    h(
      'ul',
      { class: 'plain-list', 'data-testid': 'quote-orders' },
      orders.map((order) =>
        h(
          'li',
          {},
          h('a', { href: `#/orders/${encodeURIComponent(order.id)}`, text: order.id }),
          ' ',
          h('span', {
            class: 'badge badge-small',
            'data-status': order.status,
            text: ORDER_STATUS_LABELS[order.status] ?? order.status,
          }),
        ),
      ),
    ),
  );
}
