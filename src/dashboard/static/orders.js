// The open orders (`#/orders`): every order still pending, submitted or in progress, newest first, kept
// current by the order events.

import { api, SignedOutError } from './api.js';
import { $, h } from './dom.js';
import { FINAL_ORDER_STATUSES, formatDate, ORDER_STATUS_LABELS } from './format.js';
import { chargesAwaitingAnswer, isAtLeastAsRecent, lineCounts } from './order-summary.js';
import { showError } from './problems.js';

/** The statuses of an open order; `GET /orders` filters by one status at a time. */
const OPEN_STATUSES = ['pending', 'submitted', 'in_progress'];
/** The largest page `GET /orders` answers. */
const MAX_PAGE_SIZE = 100;

/** @type {any[] | null} the open orders, newest first; null until loaded */
let orders = null;
/** How many open orders exist beyond those loaded (more than a page of one status). */
let notLoaded = 0;
let visible = false;
let seq = 0;

/** Wires the refresh button. */
export function bindOrdersList() {
  $('orders-refresh').addEventListener('click', () => loadOrders());
}

/** Shows the open orders, loading them afresh. */
export function showOrdersList() {
  visible = true;
  loadOrders();
}

/** Stops showing the list (it is loaded again when shown). */
export function hideOrdersList() {
  visible = false;
}

/** Forgets the list (on sign-out). */
export function resetOrdersList() {
  visible = false;
  orders = null;
  seq += 1;
  $('orders-body').replaceChildren();
}

/** Loads the open orders (one page of each open status); errors show above the table. */
export async function loadOrders() {
  const mine = ++seq;
  try {
    const pages = await Promise.all(
      OPEN_STATUSES.map((status) =>
        api('GET', `/orders?filter[status]=${status}&page=1&page_size=${MAX_PAGE_SIZE}`),
      ),
    );
    if (mine !== seq) return;
    orders = pages.flatMap((page) => page.data ?? []);
    notLoaded = pages.reduce(
      (sum, page) => sum + Math.max(0, (page.pagination?.total_items ?? 0) - (page.data ?? []).length),
      0,
    );
    $('orders-error').hidden = true;
    render();
  } catch (error) {
    if (error instanceof SignedOutError || mine !== seq) return;
    showError($('orders-error'), error);
  }
}

/**
 * Applies an order event: an open order is added or updated, an ended one leaves the list.
 * @param {any} order an order document
 */
export function applyOrderToList(order) {
  if (!orders || !order || typeof order.id !== 'string') return;
  const index = orders.findIndex((known) => known.id === order.id);
  if (index >= 0 && !isAtLeastAsRecent(order, orders[index])) return;
  if (index >= 0) orders.splice(index, 1);
  if (!FINAL_ORDER_STATUSES.includes(order.status)) orders.push(order);
  if (visible) render();
}

function render() {
  const list = [...(orders ?? [])].sort((a, b) => Date.parse(b.created_at) - Date.parse(a.created_at));
  $('orders-body').replaceChildren(...list.map(orderRow));
  const total = list.length + notLoaded;
  $('orders-count').textContent = `${total} open ${total === 1 ? 'order' : 'orders'} · newest first${
    notLoaded > 0 ? ` · the newest ${list.length} shown` : ''
  }`;
  $('orders-table').hidden = list.length === 0;
  $('orders-empty').hidden = list.length > 0;
}

function orderRow(order) {
  const href = `#/orders/${encodeURIComponent(order.id)}`;
  const counts = lineCounts(order);
  const awaiting = chargesAwaitingAnswer(order);
  const row = h(
    'tr',
    { 'data-testid': 'order-row', 'data-order-id': order.id, 'data-status': order.status },
    h(
      'td',
      { class: 'c-customer', 'data-label': 'Customer' },
      h(
        'a',
        { class: 'row-link', href, 'data-testid': 'order-link' },
        h('span', { class: 'address-primary', text: order.customer?.name ?? order.id }),
      ),
      h('span', { class: 'address-secondary' }, h('code', { text: order.id })),
      awaiting > 0
        ? h('span', {
            class: 'tag tag-attention',
            text: awaiting === 1 ? 'A charge awaits your answer' : `${awaiting} charges await your answer`,
          })
        : null,
      order.cancellation ? h('span', { class: 'tag', text: 'Cancellation requested' }) : null,
    ),
    h(
      'td',
      { class: 'c-status', 'data-label': 'Status' },
      h('span', {
        class: 'badge',
        'data-status': order.status,
        'data-testid': 'order-status',
        text: ORDER_STATUS_LABELS[order.status] ?? order.status,
      }),
    ),
    h('td', {
      class: 'c-lines',
      'data-label': 'Lines',
      text: `${counts.completed} of ${counts.total} completed`,
    }),
    h(
      'td',
      { class: 'c-created', 'data-label': 'Placed' },
      h('time', { datetime: order.created_at, text: formatDate(order.created_at) }),
    ),
  );
  row.addEventListener('click', (event) => {
    if (event.target instanceof Element && event.target.closest('a')) return;
    location.hash = href;
  });
  return row;
}
