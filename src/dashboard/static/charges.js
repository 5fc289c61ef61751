// A seller's charge (on an order line, or on the order's cancellation) with its items, and the buyer's
// answer: accept or decline, while it awaits one.

import { h } from './dom.js';
import { CHARGE_STATE_LABELS, formatDate, formatMoney, mefWords } from './format.js';

const PRICE_TYPES = { nonRecurring: 'one-off', recurring: 'monthly', usageBased: 'usage-based' };

/** "Construction, one-off" for an item of `price_category` construction and `price_type` nonRecurring. */
function itemName(item) {
  const category = item.price_category ? mefWords(item.price_category) : 'charge';
  const type = PRICE_TYPES[item.price_type] ?? mefWords(item.price_type ?? '');
  return `${category.charAt(0).toUpperCase()}${category.slice(1)}${type ? `, ${type}` : ''}`;
}

/**
 * How a charge stands, as a status key and its text: an answered (`completed`) charge reads as its items'
 * answers — accepted, declined, or answered when they differ.
 * @returns {[string, string]}
 */
function chargeStatus(charge, items) {
  if (charge.state === 'completed' && items.length > 0) {
    if (items.every((item) => item.state === 'acceptedByBuyer')) return ['acceptedByBuyer', 'Accepted'];
    if (items.every((item) => item.state === 'declinedByBuyer')) return ['declinedByBuyer', 'Declined'];
    return ['completed', 'Answered'];
  }
  return [
    charge.state === 'awaitingResponse' ? 'attention' : charge.state,
    CHARGE_STATE_LABELS[charge.state] ?? mefWords(charge.state ?? ''),
  ];
}

/**
 * A charge's block. While the charge awaits an answer it has an "Accept charge" and a "Decline charge"
 * button; a click disables both and calls `answer`, which applies the result (or shows why it failed).
 * @param {any} charge a charge document: `{id, state, response_due_date, items: [...]}`
 * @param {{label: string, answer: (accept: boolean) => Promise<void>, holds?: string}} options `label` names
 *   what the charge is on (e.g. the line's name), for the buttons' accessible names; `holds`, what a blocking
 *   item holds up until it is answered (default "the work")
 */
export function chargeBlock(charge, { label, answer, holds = 'the work' }) {
  const items = Array.isArray(charge.items) ? charge.items : [];
  const awaiting = charge.state === 'awaitingResponse';
  const [status, statusText] = chargeStatus(charge, items);
  const accept = h('button', {
    type: 'button',
    class: 'btn btn-primary btn-small',
    'data-focus-key': `charge-accept-${charge.id}`,
    'aria-label': `Accept charge on ${label}`,
    text: 'Accept charge',
  });
  const decline = h('button', {
    type: 'button',
    class: 'btn btn-secondary btn-small',
    'data-focus-key': `charge-decline-${charge.id}`,
    'aria-label': `Decline charge on ${label}`,
    text: 'Decline charge',
  });
  const respond = async (yes) => {
    accept.disabled = true;
    decline.disabled = true;
    try {
      await answer(yes);
    } finally {
      accept.disabled = false;
      decline.disabled = false;
    }
  };
  accept.addEventListener('click', () => respond(true));
  decline.addEventListener('click', () => respond(false));
  return h(
    'div',
    {
      class: 'charge',
      'data-testid': 'charge',
      'data-charge-id': charge.id,
      'data-state': charge.state,
      role: 'group',
      'aria-label': `Charge on ${label}`,
    },
    h(
      'div',
      { class: 'charge-head' },
      h('span', { class: 'charge-title', text: 'Charge' }),
      h('span', {
        class: 'badge badge-small',
        'data-status': status,
        'data-testid': 'charge-state',
        text: statusText,
      }),
    ),
    h(
      'ul',
      { class: 'charge-items' },
      items.map((item) =>
        h(
          'li',
          { 'data-testid': 'charge-item' },
          h('span', { text: itemName(item) }),
          h('span', { class: 'strong num', text: formatMoney(item.amount, item.currency) }),
          awaiting && item.blocking
            ? h('span', { class: 'muted small', text: `blocks ${holds} until answered` })
            : null,
        ),
      ),
    ),
    awaiting && charge.response_due_date
      ? h(
          'p',
          { class: 'muted small' },
          'Answer by ',
          h('time', { datetime: charge.response_due_date, text: formatDate(charge.response_due_date) }),
        )
      : null,
    awaiting ? h('div', { class: 'charge-actions' }, accept, decline) : null,
  );
}
