// The lines of an order as cards: status, the seller's status, dates, milestones, charges, the cancellation's
// progress, a changed seller price and any error.

import { chargeBlock } from './charges.js';
import { h } from './dom.js';
import { CANCELLATION_LABELS, formatDate, formatMoney, mefWords, ORDER_STATUS_LABELS } from './format.js';
import { manualLineActions } from './manual-line.js';

/**
 * @typedef {object} LineActions
 * @property {(line: any, charge: any, accept: boolean) => Promise<void>} answerCharge answers a line's charge
 * @property {(line: any, status: string) => Promise<void>} moveLine moves a manual line to a status
 */

/**
 * The order's lines.
 * @param {any} order an order document
 * @param {LineActions} actions
 */
export function orderLines(order, actions) {
  const lines = Array.isArray(order.lines) ? order.lines : [];
  return h(
    'ol',
    { class: 'order-lines', 'data-testid': 'order-lines' },
    lines.map((line) => lineCard(line, actions)),
  );
}

/** A fact of a line, when it has a value. */
function fact(term, value, testId) {
  if (value === null || value === undefined || value === '') return null;
  return h('div', {}, h('dt', { text: term }), h('dd', { 'data-testid': testId }, value));
}

/** A timestamp as a `<time>`. */
const time = (iso) => (iso ? h('time', { datetime: iso, text: formatDate(iso) }) : null);

/** @param {any} line @param {LineActions} actions */
function lineCard(line, { answerCharge, moveLine }) {
  const titleId = `line-${line.id}-title`;
  const milestones = Array.isArray(line.milestones) ? line.milestones : [];
  const charges = Array.isArray(line.charges) ? line.charges : [];
  const cancellation = line.cancellation ?? null;
  return h(
    'li',
    {
      class: 'order-line',
      'data-testid': 'order-line',
      'data-line-id': line.id,
      'data-status': line.status,
      'aria-labelledby': titleId,
    },
    h(
      'div',
      { class: 'order-line-head' },
      h('h3', { id: titleId, text: line.name }),
      h('span', {
        class: 'tag',
        text: line.fulfilment === 'supplier' ? 'Ordered from the seller' : 'Manual',
      }),
      h('span', {
        class: 'badge',
        'data-status': line.status,
        'data-testid': 'line-status',
        text: ORDER_STATUS_LABELS[line.status] ?? line.status,
      }),
    ),
    h(
      'dl',
      { class: 'line-facts' },
      fact(
        'Seller’s status',
        line.supplier_status ? mefWords(line.supplier_status) : null,
        'line-supplier-status',
      ),
      fact('Expected completion', time(line.expected_completion_date), 'line-expected'),
      fact('Completed', time(line.completion_date), 'line-completed'),
      fact('Seller’s order', line.supplier_order_id ? h('code', { text: line.supplier_order_id }) : null),
      fact(
        'Delivered product',
        line.inventory_product_id ? h('code', { text: line.inventory_product_id }) : null,
        'line-inventory',
      ),
    ),
    cancellation
      ? h(
          'p',
          {
            class: 'line-cancellation',
            'data-testid': 'line-cancellation',
            'data-state': cancellation.state,
          },
          CANCELLATION_LABELS[cancellation.state] ?? mefWords(cancellation.state ?? ''),
          cancellation.message ? `: ${cancellation.message}` : '',
        )
      : null,
    priceChangeBlock(line),
    // A changed price says all its error's message does, and more plainly.
    line.error && !line.price_change
      ? h(
          'p',
          { class: 'line-error', 'data-testid': 'line-error' },
          line.error.message || line.error.code,
          line.error.code ? h('code', { text: ` ${line.error.code}` }) : null,
        )
      : null,
    line.note ? h('p', { class: 'muted small', text: `Note: ${line.note}` }) : null,
    milestones.length > 0
      ? h(
          'ol',
          { class: 'milestones', 'aria-label': `Milestones of ${line.name}`, 'data-testid': 'milestones' },
          milestones.map((milestone) =>
            h(
              'li',
              { 'data-testid': 'milestone' },
              h('span', { class: 'strong', text: mefWords(milestone.name ?? '') }),
              milestone.date
                ? h('time', {
                    class: 'muted small',
                    datetime: milestone.date,
                    text: formatDate(milestone.date),
                  })
                : null,
              milestone.description ? h('span', { class: 'small', text: milestone.description }) : null,
            ),
          ),
        )
      : null,
    charges.map((charge) =>
      chargeBlock(charge, { label: line.name, answer: (accept) => answerCharge(line, charge, accept) }),
    ),
    manualLineActions(line, (status) => moveLine(line, status)),
  );
}

/** "€10.00 a month · €100.00 once" in the change's currency. */
const prices = (mrc, nrc, currency) =>
  `${formatMoney(mrc, currency)} a month · ${formatMoney(nrc, currency)} once`;

/**
 * A line not ordered because the seller's expired quote came back at another price (`SUPPLIER_PRICE_CHANGED`):
 * the purchase prices it was quoted at and the seller's new ones, side by side; null when it has none.
 * @param {any} line an order line document; `price_change` is
 *   `{quoted_mrc, quoted_nrc, new_mrc, new_nrc, currency}` in major units, or null
 */
function priceChangeBlock(line) {
  const change = line.price_change ?? null;
  if (!change) return null;
  return h(
    'div',
    { class: 'line-price-change', 'data-testid': 'line-price-change' },
    h(
      'p',
      { class: 'strong' },
      'Not ordered: the seller’s price changed since the quote.',
      line.error?.code ? h('code', { text: ` ${line.error.code}` }) : null,
    ),
    h(
      'dl',
      {},
      h(
        'div',
        {},
        h('dt', { text: 'Quoted' }),
        h('dd', {
          'data-testid': 'price-quoted',
          text: prices(change.quoted_mrc, change.quoted_nrc, change.currency),
        }),
      ),
      h(
        'div',
        {},
        h('dt', { text: 'Now' }),
        h('dd', {
          'data-testid': 'price-new',
          text: prices(change.new_mrc, change.new_nrc, change.currency),
        }),
      ),
    ),
  );
}
