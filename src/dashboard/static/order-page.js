// One order's page (`#/orders/<id>`): its status, its lines moving live (statuses, dates, milestones), the
// charges that wait for an answer, and the way to cancel it.

import { ApiError, api, SignedOutError } from './api.js';
import { bindCancelOrder, renderCancelOrder, resetCancelOrder } from './cancel-order.js';
import { chargeBlock } from './charges.js';
import { POLL_MS, SLOW_POLL_MS } from './config.js';
import { $, announce, h, keepFocus } from './dom.js';
import { FINAL_ORDER_STATUSES, formatDate, ORDER_STATUS_LABELS } from './format.js';
import { orderLines } from './order-lines.js';
import { isAtLeastAsRecent, lineCounts } from './order-summary.js';
import { applyOrderToList } from './orders.js';
import { showError } from './problems.js';
import { state } from './state.js';

/** @type {string | null} the order shown */
let orderId = null;
/** @type {any} its latest document */
let order = null;
let seq = 0;
/** @type {ReturnType<typeof setTimeout> | undefined} */
let pollTimer;

/** Wires the page's cancel form. */
export function bindOrderPage() {
  bindCancelOrder(applyOrder);
}

/**
 * Shows an order, loading it when it is not the one shown.
 * @param {string} id
 */
export function showOrderPage(id) {
  if (orderId !== id) {
    orderId = id;
    order = null;
    $('order-title').textContent = 'Loading…';
    $('order-sub').textContent = id;
    $('order-summary').replaceChildren(h('p', { class: 'muted loading', text: 'Loading the order…' }));
    $('order-lines').replaceChildren();
    $('order-error').hidden = true;
    resetCancelOrder();
  }
  loadOrder();
}

/** Stops following the order shown (on leaving its page or signing out). */
export function hideOrderPage() {
  clearTimeout(pollTimer);
  seq += 1;
  orderId = null;
  order = null;
  resetCancelOrder();
}

/**
 * Applies an order event of the event stream: to the open orders, and to this page when it shows that order.
 * @param {any} document an order document
 */
export function applyOrderEvent(document) {
  if (document?.id === orderId) applyOrder(document);
  else applyOrderToList(document);
}

/** Reads the order shown again (after the event stream reconnects: events may have been missed). */
export function reloadOrderPage() {
  if (orderId) loadOrder();
}

async function loadOrder() {
  const id = orderId;
  if (!id) return;
  const mine = ++seq;
  clearTimeout(pollTimer);
  try {
    const document = await api('GET', `/orders/${encodeURIComponent(id)}`);
    if (mine !== seq || orderId !== id) return;
    applyOrder(document.data);
  } catch (error) {
    if (error instanceof SignedOutError || mine !== seq) return;
    if (error instanceof ApiError && error.status === 404) $('order-title').textContent = 'Not found';
    showError($('order-error'), error);
    schedulePoll();
  }
}

/**
 * Shows a newer document of the order shown (an older one, e.g. a late event, is ignored) and announces
 * the statuses that changed.
 * @param {any} document
 */
function applyOrder(document) {
  if (!document || document.id !== orderId) return;
  if (order && !isAtLeastAsRecent(document, order)) return;
  const previous = order;
  order = document;
  $('order-error').hidden = true;
  keepFocus(render);
  if (previous) announceChanges(previous, document);
  applyOrderToList(document);
  schedulePoll();
}

/** Reads the order again while it is open: often while the event stream is down, rarely while it is up. */
function schedulePoll() {
  clearTimeout(pollTimer);
  if (!orderId || (order && FINAL_ORDER_STATUSES.includes(order.status))) return;
  pollTimer = setTimeout(loadOrder, state.eventsOpen ? SLOW_POLL_MS : POLL_MS);
}

function announceChanges(before, after) {
  const messages = [];
  for (const line of after.lines ?? []) {
    const old = (before.lines ?? []).find((known) => known.id === line.id);
    if (old && old.status !== line.status) {
      messages.push(`${line.name}: ${ORDER_STATUS_LABELS[line.status] ?? line.status}.`);
    }
  }
  if (before.status !== after.status) {
    messages.push(`Order ${ORDER_STATUS_LABELS[after.status] ?? after.status}.`);
  }
  if (messages.length > 0) announce(messages.join(' '));
}

/**
 * Changes the order (answers a charge, moves a manual line) and shows the order the API answers; an error
 * shows above the page, and the order is read again (it may have moved meanwhile: a charge answered
 * elsewhere or past its due date, a line moved by someone else).
 * @param {'POST' | 'PATCH'} method
 * @param {string} path below the order, e.g. `lines/orl_…/charges/<id>/accept`
 * @param {unknown} body
 * @param {string} done announced once the change is made
 */
async function change(method, path, body, done) {
  const id = orderId;
  if (!id) return;
  try {
    const document = await api(method, `/orders/${encodeURIComponent(id)}/${path}`, body);
    if (orderId !== id) return;
    announce(done);
    applyOrder(document.data);
  } catch (error) {
    if (error instanceof SignedOutError || orderId !== id) return;
    showError($('order-error'), error);
    loadOrder();
  }
}

function render() {
  if (!order) return;
  $('order-title').textContent = `Order for ${order.customer?.name ?? 'a customer'}`;
  $('order-sub').textContent = `Placed ${formatDate(order.created_at)}`;
  const cancellable = !FINAL_ORDER_STATUSES.includes(order.status) && !order.cancellation;
  $('order-summary').replaceChildren(
    ...[summary(order), cancellation(order)].filter((node) => node !== null),
  );
  $('order-lines').replaceChildren(
    orderLines(order, {
      answerCharge: (line, charge, accept) =>
        change(
          'POST',
          `lines/${encodeURIComponent(line.id)}/charges/${encodeURIComponent(charge.id)}/${accept ? 'accept' : 'decline'}`,
          undefined,
          accept ? 'Charge accepted.' : 'Charge declined.',
        ),
      moveLine: (line, status) =>
        change(
          'PATCH',
          `lines/${encodeURIComponent(line.id)}`,
          { status },
          `${line.name}: ${ORDER_STATUS_LABELS[status] ?? status}.`,
        ),
    }),
  );
  renderCancelOrder(order, cancellable);
}

/** Status, how many lines are done, the key dates and the order's ids. */
function summary(doc) {
  const counts = lineCounts(doc);
  const percent = counts.total === 0 ? 0 : Math.round((counts.ended / counts.total) * 100);
  const fill = h('span', { class: 'progress-fill' });
  fill.style.width = `${percent}%`;
  return h(
    'div',
    { class: 'detail-summary' },
    h(
      'div',
      { class: 'detail-status' },
      h('span', {
        class: 'badge',
        'data-status': doc.status,
        'data-testid': 'order-status',
        text: ORDER_STATUS_LABELS[doc.status] ?? doc.status,
      }),
      h(
        'div',
        { class: 'progress-line' },
        h(
          'div',
          {
            class: 'progress',
            role: 'progressbar',
            'aria-valuemin': '0',
            'aria-valuemax': '100',
            'aria-valuenow': String(percent),
            'aria-valuetext': `${counts.ended} of ${counts.total} lines ended`,
            'aria-label': 'Lines ended',
            // Only a completed order's bar is green: a cancelled or failed one ended without its lines.
            'data-status':
              doc.status === 'completed'
                ? 'completed'
                : FINAL_ORDER_STATUSES.includes(doc.status)
                  ? 'ended'
                  : 'in_progress',
          },
          fill,
        ),
        h('span', {
          class: 'progress-value',
          'data-testid': 'order-progress',
          text: `${counts.completed} of ${counts.total} completed`,
        }),
      ),
    ),
    h(
      'dl',
      { class: 'stats' },
      h(
        'div',
        {},
        h('dt', { text: 'Customer' }),
        h('dd', { class: 'stat-text', text: doc.customer?.name ?? '–' }),
      ),
      h('div', {}, h('dt', { text: 'Lines' }), h('dd', { text: String(counts.total) })),
      h(
        'div',
        {},
        h('dt', { text: 'Requested by' }),
        h(
          'dd',
          { class: 'stat-text' },
          h('time', {
            datetime: doc.requested_completion_date,
            text: formatDate(doc.requested_completion_date),
          }),
        ),
      ),
      h(
        'div',
        {},
        h('dt', { text: 'Updated' }),
        h(
          'dd',
          { class: 'stat-text' },
          h('time', { datetime: doc.updated_at, text: formatDate(doc.updated_at) }),
        ),
      ),
    ),
    h(
      'p',
      { class: 'muted small detail-meta' },
      'ID ',
      h('code', { text: doc.id }),
      ' · ',
      h('a', { href: `#/quotes/${encodeURIComponent(doc.quote_id)}`, text: 'Its quote' }),
    ),
  );
}

/** The cancellation asked for, and the charges the sellers ask for it. */
function cancellation(doc) {
  const asked = doc.cancellation ?? null;
  const charges = Array.isArray(doc.cancellation_charges) ? doc.cancellation_charges : [];
  if (!asked && charges.length === 0) return null;
  return h(
    'section',
    { class: 'notice', 'data-testid': 'order-cancellation', 'aria-labelledby': 'order-cancellation-title' },
    h('h2', { id: 'order-cancellation-title', text: 'Cancellation' }),
    asked
      ? h(
          'p',
          { 'data-testid': 'cancellation-requested' },
          'Requested ',
          h('time', { datetime: asked.requested_at, text: formatDate(asked.requested_at) }),
          asked.reason ? `: “${asked.reason}”` : '',
        )
      : null,
    charges.map((charge) =>
      chargeBlock(charge, {
        label: 'the cancellation',
        holds: 'the cancellation',
        answer: (accept) =>
          change(
            'POST',
            `cancellation-charges/${encodeURIComponent(charge.id)}/${accept ? 'accept' : 'decline'}`,
            undefined,
            accept ? 'Cancellation charge accepted.' : 'Cancellation charge declined.',
          ),
      }),
    ),
  );
}
