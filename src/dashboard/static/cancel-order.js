// Cancelling an order: a "Cancel order" button that opens a short form asking why, then
// `POST /orders/{id}/cancel` with the reason.

import { api, SignedOutError } from './api.js';
import { $, announce } from './dom.js';
import { showError } from './problems.js';

/** @type {string | null} the order the form is for */
let orderId = null;
/** @type {(order: any) => void} */
let applied = () => {};

/**
 * Wires the cancel button and form.
 * @param {(order: any) => void} onCancelled applies the order the API answers
 */
export function bindCancelOrder(onCancelled) {
  applied = onCancelled;
  $('cancel-open').addEventListener('click', () => setOpen(true));
  $('cancel-keep').addEventListener('click', () => setOpen(false));
  $('cancel-form').addEventListener('submit', onSubmit);
}

/**
 * Shows the cancel controls for an order, or hides them when it cannot be cancelled any more.
 * @param {any} order an order document
 * @param {boolean} cancellable whether the order is open and no cancellation was asked yet
 */
export function renderCancelOrder(order, cancellable) {
  if (orderId !== order.id) {
    orderId = order.id;
    /** @type {HTMLTextAreaElement} */ ($('cancel-reason')).value = '';
    setOpen(false);
  }
  $('cancel-section').hidden = !cancellable;
}

/** Closes the form and forgets its order (on leaving the page). */
export function resetCancelOrder() {
  orderId = null;
  setOpen(false);
  $('cancel-section').hidden = true;
}

/** @param {boolean} open */
function setOpen(open) {
  $('cancel-form').hidden = !open;
  $('cancel-open').hidden = open;
  $('cancel-open').setAttribute('aria-expanded', String(open));
  $('cancel-error').hidden = true;
  if (open) /** @type {HTMLTextAreaElement} */ ($('cancel-reason')).focus();
}

async function onSubmit(event) {
  event.preventDefault();
  const id = orderId;
  const reason = /** @type {HTMLTextAreaElement} */ ($('cancel-reason'));
  const error = $('cancel-error');
  if (!id) return;
  if (!reason.value.trim()) {
    error.textContent = 'Say why the order is cancelled: the sellers are told.';
    error.hidden = false;
    reason.setAttribute('aria-invalid', 'true');
    reason.focus();
    return;
  }
  reason.removeAttribute('aria-invalid');
  const submit = /** @type {HTMLButtonElement} */ ($('cancel-submit'));
  submit.disabled = true;
  try {
    const document = await api('POST', `/orders/${encodeURIComponent(id)}/cancel`, {
      reason: reason.value.trim(),
    });
    if (orderId !== id) return;
    setOpen(false);
    announce('Cancellation requested.');
    applied(document.data);
  } catch (caught) {
    if (caught instanceof SignedOutError || orderId !== id) return;
    showError(error, caught);
  } finally {
    submit.disabled = false;
  }
}
