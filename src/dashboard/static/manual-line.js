// The buttons that move a manual line (one the reseller fulfils by its own means) through its statuses:
// `PATCH /orders/{id}/lines/{line_id}` with the new status.

import { h } from './dom.js';

/** The moves a manual line offers from each open status (README: "A manual line, done by other means"). */
const MOVES = {
  pending: ['in_progress', 'completed', 'failed'],
  submitted: ['in_progress', 'completed', 'failed'],
  in_progress: ['completed', 'failed'],
};
const VERBS = { in_progress: 'Mark in progress', completed: 'Mark completed', failed: 'Mark failed' };

/**
 * The buttons of a manual line that has not ended (null for any other line). A click disables them and
 * calls `move`, which applies the result (or shows why it failed).
 * @param {any} line an order line document
 * @param {(status: string) => Promise<void>} move
 */
export function manualLineActions(line, move) {
  const moves = line.fulfilment === 'manual' ? (MOVES[line.status] ?? []) : [];
  if (moves.length === 0) return null;
  const buttons = moves.map((status) =>
    h('button', {
      type: 'button',
      class: status === 'completed' ? 'btn btn-primary btn-small' : 'btn btn-secondary btn-small',
      'data-focus-key': `line-${line.id}-${status}`,
      'aria-label': `${VERBS[status]}: ${line.name}`,
      text: VERBS[status],
      onclick: async () => {
        for (const button of buttons) button.disabled = true;
        try {
          await move(status);
        } finally {
          for (const button of buttons) button.disabled = false;
        }
      },
    }),
  );
  return h(
    'div',
    { class: 'charge-actions', role: 'group', 'aria-label': `Move ${line.name}` },
    h('span', { class: 'muted small', text: 'Done by your own means:' }),
    buttons,
  );
}
