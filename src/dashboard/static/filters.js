// The optional product filters of the new-request form: one group of chips per filter the options
// endpoint offers for the country.

import { $, h } from './dom.js';
import { formatBandwidth, formatTerm } from './format.js';

const FILTER_GROUPS = [
  { key: 'networks', legend: 'Networks' },
  { key: 'technology_types', legend: 'Technology' },
  { key: 'connection_types', legend: 'Connection type' },
  { key: 'bandwidths', legend: 'Bandwidth (down/up)' },
  { key: 'contract_terms', legend: 'Contract term' },
];

/**
 * Renders a chip per offered value of each filter; groups without values are left out.
 * @param {Record<string, unknown[]>} filters the options endpoint's `filters.filters`
 */
export function renderFilters(filters) {
  const container = $('filter-groups');
  const groups = FILTER_GROUPS.filter(({ key }) => Array.isArray(filters[key]) && filters[key].length > 0);
  container.replaceChildren(
    ...groups.map(({ key, legend }) =>
      h(
        'fieldset',
        { class: 'filter-group', 'data-testid': `filter-${key}` },
        h('legend', { text: legend }),
        h(
          'div',
          { class: 'chips' },
          filters[key].map((value, index) => {
            const id = `filter-${key}-${index}`;
            const label =
              key === 'bandwidths'
                ? formatBandwidth(value)
                : key === 'contract_terms'
                  ? formatTerm(value)
                  : String(value);
            return h(
              'span',
              { class: 'chip' },
              h('input', {
                type: 'checkbox',
                id,
                name: key,
                value: JSON.stringify(value),
                onchange: updateFilterCount,
              }),
              h('label', { for: id, text: label }),
            );
          }),
        ),
      ),
    ),
  );
  updateFilterCount();
}

/**
 * The checked values of each filter, as the request body's filter members (filters without a checked
 * value are left out).
 * @returns {Record<string, unknown[]>}
 */
export function selectedFilters() {
  const selected = {};
  for (const { key } of FILTER_GROUPS) {
    const checked = [...$('filter-groups').querySelectorAll(`input[name="${key}"]:checked`)];
    if (checked.length > 0)
      selected[key] = checked.map((input) => JSON.parse(/** @type {HTMLInputElement} */ (input).value));
  }
  return selected;
}

function updateFilterCount() {
  const count = $('filter-groups').querySelectorAll('input:checked').length;
  const pill = $('filter-count');
  pill.textContent = `${count} selected`;
  pill.hidden = count === 0;
}
