// Finding a customer by name (`GET /customers?filter[name]=…`) and choosing one of those found.

import { api, SignedOutError } from './api.js';
import { h } from './dom.js';
import { showError } from './problems.js';

/** How many customers a search shows. */
const SHOWN = 10;

/**
 * A customer search: a search form, and the customers found as radio buttons (one found is chosen).
 * @param {(customer: any | null) => void} onChosen called with the chosen customer (null when none is)
 * @returns {{element: HTMLElement, reset: () => void, chosen: () => any | null}}
 */
export function customerSearch(onChosen) {
  /** @type {any[]} */
  let found = [];
  /** @type {any | null} */
  let chosen = null;
  let seq = 0;

  const input = h('input', {
    type: 'search',
    id: 'customer-query',
    name: 'customer_name',
    autocomplete: 'off',
    spellcheck: 'false',
    placeholder: 'Part of the name',
  });
  const status = h('p', { class: 'muted small', role: 'status', 'data-testid': 'customer-status' });
  const error = h('div', { class: 'form-error', role: 'alert', hidden: true });
  const choices = h('div', { class: 'choices' });
  const fieldset = h(
    'fieldset',
    { class: 'choice', hidden: true },
    h('legend', { text: 'Customer' }),
    choices,
  );

  const choose = (customer) => {
    chosen = customer;
    onChosen(customer);
  };

  const renderChoices = () => {
    choices.replaceChildren(
      ...found.map((customer) => {
        const id = `customer-${customer.id}`;
        return h(
          'div',
          { class: 'choice-row' },
          h('input', {
            type: 'radio',
            name: 'customer',
            id,
            value: customer.id,
            checked: chosen?.id === customer.id,
            onchange: () => choose(customer),
          }),
          h(
            'label',
            { for: id },
            customer.name,
            customer.auto_number
              ? h('span', { class: 'muted small', text: ` · ${customer.auto_number}` })
              : null,
          ),
        );
      }),
    );
    fieldset.hidden = found.length === 0;
  };

  const search = async (event) => {
    event.preventDefault();
    const name = /** @type {HTMLInputElement} */ (input).value.trim();
    const mine = ++seq;
    error.hidden = true;
    if (!name) {
      status.textContent = 'Type part of the customer’s name.';
      input.focus();
      return;
    }
    status.textContent = 'Searching…';
    try {
      const document = await api(
        'GET',
        `/customers?filter[name]=${encodeURIComponent(name)}&page=1&page_size=${SHOWN}`,
      );
      if (mine !== seq) return;
      found = document.data ?? [];
      const total = document.pagination?.total_items ?? found.length;
      status.textContent =
        found.length === 0
          ? `No customer’s name contains “${name}”.`
          : total > found.length
            ? `${total} customers match; the first ${found.length} are shown: narrow the name down.`
            : `${found.length} ${found.length === 1 ? 'customer matches' : 'customers match'}.`;
      choose(found.length === 1 ? found[0] : null);
      renderChoices();
    } catch (caught) {
      if (caught instanceof SignedOutError || mine !== seq) return;
      status.textContent = '';
      showError(error, caught);
    }
  };

  const element = h(
    'div',
    { class: 'stack customer-search' },
    h(
      'form',
      { role: 'search', 'aria-label': 'Find a customer', class: 'field', novalidate: true, onsubmit: search },
      h('label', { for: 'customer-query', text: 'Customer name' }),
      h(
        'div',
        { class: 'inline-field' },
        input,
        h('button', { type: 'submit', class: 'btn btn-secondary', text: 'Find customer' }),
      ),
      status,
    ),
    error,
    fieldset,
  );

  return {
    element,
    chosen: () => chosen,
    reset: () => {
      seq += 1;
      found = [];
      chosen = null;
      /** @type {HTMLInputElement} */ (input).value = '';
      status.textContent = '';
      error.hidden = true;
      renderChoices();
    },
  };
}
