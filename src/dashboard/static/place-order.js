// The "Place order" form of a quote's page: an optional requested completion date and contact for the
// sellers, then `POST /orders`; the new order's page follows.

import { api, SignedOutError } from './api.js';
import { $, announce } from './dom.js';
import { showError } from './problems.js';

/** @type {string | null} the quote the form orders */
let quoteId = null;

/** Wires the form. */
export function bindPlaceOrder() {
  $('place-form').addEventListener('submit', onSubmit);
}

/**
 * Shows the form for a quote, or hides it (with a note why) when the quote cannot be ordered now.
 * @param {string} id the quote's id
 * @param {string | null} refusal why it cannot be ordered, or null when it can
 */
export function renderPlaceOrder(id, refusal) {
  if (quoteId !== id) {
    quoteId = id;
    /** @type {HTMLFormElement} */ ($('place-form')).reset();
    $('place-error').hidden = true;
  }
  const date = /** @type {HTMLInputElement} */ ($('place-date'));
  date.min = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
  $('place-section').hidden = false;
  $('place-form').hidden = refusal !== null;
  $('place-note').textContent =
    refusal ?? 'The sellers are asked to complete by this date (30 days from now when left empty).';
}

/** Hides the form (on leaving the page). */
export function resetPlaceOrder() {
  quoteId = null;
  $('place-section').hidden = true;
}

/** @param {string} name */
const value = (name) => /** @type {HTMLInputElement} */ ($(name)).value.trim();

async function onSubmit(event) {
  event.preventDefault();
  const id = quoteId;
  if (!id) return;
  const error = $('place-error');
  const body = { quote_id: id };
  const day = value('place-date');
  if (day) body.requested_completion_date = new Date(`${day}T12:00:00`).toISOString();
  const contact = {
    name: value('contact-name'),
    email_address: value('contact-email'),
    number: value('contact-number'),
  };
  if (contact.name || contact.email_address || contact.number) {
    if (!contact.name || !contact.email_address) {
      error.textContent = 'A contact needs a name and an email address (or leave all three empty).';
      error.hidden = false;
      $(contact.name ? 'contact-email' : 'contact-name').focus();
      return;
    }
    body.contact = contact.number ? contact : { name: contact.name, email_address: contact.email_address };
  }
  const submit = /** @type {HTMLButtonElement} */ ($('place-submit'));
  submit.disabled = true;
  submit.textContent = 'Placing…';
  try {
    const document = await api('POST', '/orders', body);
    if (quoteId !== id) return;
    error.hidden = true;
    announce('Order placed.');
    location.hash = `#/orders/${encodeURIComponent(document.data.id)}`;
  } catch (caught) {
    if (caught instanceof SignedOutError || quoteId !== id) return;
    showError(error, caught);
  } finally {
    submit.disabled = false;
    submit.textContent = 'Place order';
  }
}
