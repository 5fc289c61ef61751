// The products of one request as a table the user can sort by any column.

import { h } from './dom.js';
import { formatBandwidth, formatMoney, formatTerm } from './format.js';
import { state } from './state.js';

const PRODUCT_COLUMNS = [
  { key: 'network', label: 'Network' },
  { key: 'technology_type', label: 'Technology' },
  { key: 'connection_type', label: 'Connection' },
  { key: 'bandwidth', label: 'Bandwidth', numeric: true },
  { key: 'contract_term', label: 'Term', numeric: true },
  { key: 'mrc', label: 'Monthly', numeric: true },
  { key: 'nrc', label: 'One-off', numeric: true },
];

function sortValue(product, key) {
  if (key === 'bandwidth') return product.bandwidth.download * 1e7 + product.bandwidth.upload;
  return product[key];
}

/** A product's short description, for the accessible name of its checkbox. */
function productLabel(product) {
  return `${product.network} ${product.technology_type} ${formatBandwidth(product.bandwidth)}, ${formatTerm(
    product.contract_term,
  )}, ${formatMoney(product.mrc, product.currency)} a month`;
}

/**
 * The products table, in the order of `state.sort` (the API's order without one). A column heading sets
 * the sort, calls `rerender` to draw the table again, and keeps the focus on that heading. With a
 * `selection`, each row starts with a checkbox that adds the product to it or takes it out.
 * @param {any[]} products
 * @param {() => void} rerender
 * @param {{has: (id: string) => boolean, set: (id: string, selected: boolean) => void}} [selection]
 */
export function productTable(products, rerender, selection) {
  const sorted = [...products];
  const sort = state.sort;
  if (sort) {
    sorted.sort((a, b) => {
      const x = sortValue(a, sort.key);
      const y = sortValue(b, sort.key);
      const order =
        typeof x === 'number' && typeof y === 'number' ? x - y : String(x).localeCompare(String(y));
      return order * sort.dir;
    });
  }
  const head = h(
    'tr',
    {},
    selection
      ? h('th', { scope: 'col', class: 'p-select' }, h('span', { class: 'visually-hidden', text: 'Select' }))
      : null,
    PRODUCT_COLUMNS.map((column) => {
      const active = sort?.key === column.key;
      const direction = active ? (sort?.dir === 1 ? 'ascending' : 'descending') : 'none';
      return h(
        'th',
        { scope: 'col', 'aria-sort': direction, class: column.numeric ? 'num' : null },
        h(
          'button',
          {
            type: 'button',
            class: 'sort',
            'data-sort': column.key,
            onclick: () => {
              state.sort = { key: column.key, dir: active && sort?.dir === 1 ? -1 : 1 };
              rerender();
              /** @type {HTMLElement | null} */ (
                document.querySelector(`#detail-body button[data-sort="${column.key}"]`)
              )?.focus();
            },
          },
          column.label,
          h('span', {
            class: 'sort-icon',
            'aria-hidden': 'true',
            text: active ? (sort?.dir === 1 ? '▲' : '▼') : '↕',
          }),
        ),
      );
    }),
  );
  const body = sorted.map((product) =>
    h(
      'tr',
      { 'data-testid': 'product-row', 'data-product-id': product.id },
      selection
        ? h(
            'td',
            { class: 'p-select' },
            h('input', {
              type: 'checkbox',
              'aria-label': `Select ${productLabel(product)}`,
              'data-testid': 'product-select',
              checked: selection.has(product.id),
              onchange: (event) => selection.set(product.id, event.currentTarget.checked),
            }),
          )
        : null,
      h('td', { 'data-label': 'Network', class: 'p-network strong', text: product.network }),
      h('td', { 'data-label': 'Technology', class: 'p-technology', text: product.technology_type }),
      h('td', { 'data-label': 'Connection', class: 'p-connection', text: product.connection_type }),
      h('td', {
        'data-label': 'Bandwidth',
        class: 'p-bandwidth num',
        text: formatBandwidth(product.bandwidth),
      }),
      h('td', { 'data-label': 'Term', class: 'p-term num', text: formatTerm(product.contract_term) }),
      h('td', {
        'data-label': 'Monthly',
        class: 'p-mrc num strong',
        text: formatMoney(product.mrc, product.currency),
      }),
      h('td', {
        'data-label': 'One-off',
        class: 'p-nrc num',
        text: formatMoney(product.nrc, product.currency),
      }),
    ),
  );
  return h(
    'div',
    { class: 'table-scroll' },
    h(
      'table',
      { class: selection ? 'products-table selectable' : 'products-table', 'data-testid': 'products' },
      h('caption', { class: 'visually-hidden', text: 'Products; select a column heading to sort.' }),
      h('thead', {}, head),
      h('tbody', {}, body),
    ),
  );
}
