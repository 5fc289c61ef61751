// "Add to a quote", under a request's products: the products selected in the table go to a new quote of a
// customer found by name, or onto one of that customer's quotes; the quote's page follows.

import { api, SignedOutError } from './api.js';
import { customerSearch } from './customer-search.js';
import { announce, h } from './dom.js';
import { addressLines, formatDay, formatMoney } from './format.js';
import { openQuotesOfCustomer } from './graphql.js';
import { showError } from './problems.js';

/** @type {string | null} the request whose products are offered */
let requestId = null;
/** @type {any[]} that request's products, as last shown */
let products = [];
/** @type {Set<string>} the ids of the products selected */
const selected = new Set();
/** @type {ReturnType<typeof build> | null} */
let builder = null;

/** The selection the products table reads and changes. */
export const productSelection = {
  /** @param {string} id */
  has: (id) => selected.has(id),
  /** @param {string} id @param {boolean} on */
  set: (id, on) => {
    if (on) selected.add(id);
    else selected.delete(id);
    builder?.renderSelection();
  },
};

/**
 * The "Add to a quote" section for a request: the same element while the request stays open (so what the
 * user typed survives the detail being drawn again), emptied when another request opens.
 * @param {any} detail the request with its products
 * @returns {HTMLElement}
 */
export function addToQuoteSection(detail) {
  builder ??= build();
  if (requestId !== detail.id) {
    requestId = detail.id;
    selected.clear();
    builder.reset(addressLines(detail.address).primary);
  }
  products = Array.isArray(detail.products) ? detail.products : [];
  builder.renderSelection();
  return builder.element;
}

/** Forgets the request and the selection (the dialog closed, or sign-out). */
export function resetAddToQuote() {
  requestId = null;
  products = [];
  selected.clear();
  builder?.reset('');
}

function build() {
  /** @type {any[]} */
  let quotes = [];
  let quotesSeq = 0;
  const summary = h('p', { class: 'muted small', role: 'status', 'data-testid': 'selection-summary' });
  const quoteChoices = h('div', { class: 'choices' });
  const quoteStatus = h('p', { class: 'muted small', role: 'status' });
  const quoteFieldset = h(
    'fieldset',
    { class: 'choice', hidden: true },
    h('legend', { text: 'Quote' }),
    quoteChoices,
    quoteStatus,
  );
  const nameInput = /** @type {HTMLInputElement} */ (
    h('input', {
      type: 'text',
      id: 'new-quote-name',
      name: 'quote_name',
      maxlength: '200',
      autocomplete: 'off',
    })
  );
  const error = h('div', { class: 'form-error', role: 'alert', hidden: true });
  const submit = /** @type {HTMLButtonElement} */ (
    h('button', { type: 'submit', class: 'btn btn-primary', text: 'Add to quote' })
  );

  const renderQuotes = () => {
    const newRow = h(
      'div',
      { class: 'choice-row choice-new' },
      h('input', { type: 'radio', name: 'quote', id: 'quote-new', value: '', checked: true }),
      h('label', { for: 'quote-new', text: 'A new quote' }),
      h(
        'div',
        { class: 'field choice-detail' },
        h('label', { for: 'new-quote-name', text: 'Name of the new quote' }),
        nameInput,
      ),
    );
    quoteChoices.replaceChildren(
      newRow,
      ...quotes.map((quote) => {
        const id = `quote-${quote.id}`;
        return h(
          'div',
          { class: 'choice-row' },
          h('input', { type: 'radio', name: 'quote', id, value: quote.id }),
          h(
            'label',
            { for: id },
            `${quote.quoteNumber} · ${quote.name}`,
            h('span', {
              class: 'muted small',
              text: ` · ${quote.totalProducts} ${quote.totalProducts === 1 ? 'line' : 'lines'}, valid until ${formatDay(quote.expirationDate)}`,
            }),
          ),
        );
      }),
    );
  };

  const onCustomer = async (customer) => {
    const mine = ++quotesSeq;
    quotes = [];
    quoteFieldset.hidden = !customer;
    renderQuotes();
    if (!customer) return;
    quoteStatus.textContent = 'Looking for this customer’s quotes…';
    try {
      const found = await openQuotesOfCustomer(customer.id);
      if (mine !== quotesSeq) return;
      quotes = found;
      quoteStatus.textContent =
        found.length === 0 ? `${customer.name} has no quote that is still valid.` : '';
      renderQuotes();
    } catch (caught) {
      if (caught instanceof SignedOutError || mine !== quotesSeq) return;
      quoteStatus.textContent = '';
      showError(error, caught);
    }
  };
  const customers = customerSearch(onCustomer);

  const onSubmit = async (event) => {
    event.preventDefault();
    error.hidden = true;
    const ids = products.filter((product) => selected.has(product.id)).map((product) => product.id);
    const customer = customers.chosen();
    const chosen = /** @type {HTMLInputElement | null} */ (
      quoteChoices.querySelector('input[name=quote]:checked')
    );
    const quoteId = chosen?.value || null;
    const problem =
      ids.length === 0
        ? 'Select at least one product in the table above.'
        : !customer
          ? 'Find the customer and choose them.'
          : !quoteId && !nameInput.value.trim()
            ? 'Name the new quote.'
            : null;
    if (problem) {
      error.textContent = problem;
      error.hidden = false;
      return;
    }
    submit.disabled = true;
    try {
      const document = quoteId
        ? await api('POST', `/quotes/${encodeURIComponent(quoteId)}/products`, {
            availability_request_product_ids: ids,
          })
        : await api('POST', '/quotes', {
            name: nameInput.value.trim(),
            customer_id: customer.id,
            availability_request_product_ids: ids,
          });
      announce(quoteId ? 'Products added to the quote.' : 'Quote created.');
      location.hash = `#/quotes/${encodeURIComponent(document.data.id)}`;
    } catch (caught) {
      if (caught instanceof SignedOutError) return;
      showError(error, caught);
    } finally {
      submit.disabled = false;
    }
  };

  const element = h(
    'section',
    {
      class: 'detail-section add-to-quote',
      'aria-labelledby': 'add-quote-title',
      'data-testid': 'add-to-quote',
    },
    h('h3', { id: 'add-quote-title', text: 'Add to a quote' }),
    summary,
    customers.element,
    h('form', { class: 'stack', novalidate: true, onsubmit: onSubmit }, quoteFieldset, error, submit),
  );

  return {
    element,
    renderSelection: () => {
      const picked = products.filter((product) => selected.has(product.id));
      const currencies = new Set(picked.map((product) => product.currency));
      const monthly =
        picked.length > 0 && currencies.size === 1
          ? ` · ${formatMoney(
              picked.reduce((sum, product) => sum + product.mrc, 0),
              picked[0].currency,
            )} a month`
          : '';
      summary.textContent =
        picked.length === 0
          ? 'Select products in the table above to put them on a quote.'
          : `${picked.length} ${picked.length === 1 ? 'product' : 'products'} selected${monthly}`;
    },
    /** @param {string} defaultName the new quote's name until the user types one */
    reset: (defaultName) => {
      quotesSeq += 1;
      quotes = [];
      customers.reset();
      quoteFieldset.hidden = true;
      nameInput.value = defaultName;
      error.hidden = true;
      renderQuotes();
    },
  };
}
