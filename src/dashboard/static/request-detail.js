// The detail dialog of one availability request (`#/requests/<id>`): its progress, its sources and its
// products, re-read while it is gathering; the products selected go onto a quote (add-to-quote.js).

import { addToQuoteSection, productSelection, resetAddToQuote } from './add-to-quote.js';
import { ApiError, api, SignedOutError } from './api.js';
import { POLL_MS } from './config.js';
import { $, h } from './dom.js';
import { addressLines, filtersSummary, formatDate, formatMoney, percentOf, STATUS_LABELS } from './format.js';
import { showError } from './problems.js';
import { productTable } from './products-table.js';
import { applyRecord } from './requests-list.js';
import { state } from './state.js';

const SOURCE_STATUS_LABELS = {
  queued: 'Queued',
  running: 'Running',
  succeeded: 'Answered',
  failed: 'Failed',
};

/** @type {ReturnType<typeof setTimeout> | undefined} */
let detailRefresh;

/** Wires the dialog: its close button, Escape and a click on the backdrop (router.js follows the hash). */
export function bindDetail() {
  const dialog = /** @type {HTMLDialogElement} */ ($('detail'));
  $('detail-close').addEventListener('click', closeDetail);
  dialog.addEventListener('close', () => {
    if (location.hash.startsWith('#/requests/')) closeDetail();
  });
  dialog.addEventListener('click', (event) => {
    if (event.target === dialog) closeDetail(); // a click on the backdrop
  });
}

/** Opens or closes the detail dialog after the location hash (`#/requests/<id>`). */
export function route() {
  const match = /^#\/requests\/([^/]+)$/.exec(location.hash);
  const dialog = /** @type {HTMLDialogElement} */ ($('detail'));
  if (match && state.session) {
    const id = decodeURIComponent(match[1] ?? '');
    if (state.detailId !== id) {
      state.detailId = id;
      state.detail = null;
      state.sort = null;
      resetAddToQuote();
      renderDetailLoading(id);
    }
    if (!dialog.open) dialog.showModal();
    loadDetail();
  } else {
    state.detailId = null;
    state.detail = null;
    clearTimeout(state.detailTimer);
    resetAddToQuote();
    if (dialog.open) dialog.close();
  }
}

/** Forgets the open request and closes the dialog (on sign-out). */
export function resetDetail() {
  clearTimeout(state.detailTimer);
  state.detailId = null;
  state.detail = null;
  resetAddToQuote();
  const dialog = /** @type {HTMLDialogElement} */ ($('detail'));
  if (dialog.open) dialog.close();
}

/**
 * Reloads the open detail soon when an event shows its request in another state than the one shown.
 * @param {any} record a list record from the event stream
 */
export function refreshDetailIfChanged(record) {
  if (state.detailId === record.id && state.detail && !sameProgress(record, state.detail)) {
    clearTimeout(detailRefresh);
    detailRefresh = setTimeout(loadDetail, 400);
  }
}

/** Whether two records of one request show the same state. */
function sameProgress(a, b) {
  return (
    a.status === b.status &&
    a.networks_progress_percentage === b.networks_progress_percentage &&
    a.updated_at === b.updated_at
  );
}

function closeDetail() {
  if (location.hash.startsWith('#/requests/')) {
    history.replaceState(null, '', location.pathname + location.search);
  }
  route();
}

async function loadDetail() {
  const id = state.detailId;
  if (!id) return;
  const seq = ++state.detailSeq;
  clearTimeout(state.detailTimer);
  try {
    const document = await api('GET', `/availability-requests/${encodeURIComponent(id)}`);
    if (seq !== state.detailSeq || state.detailId !== id) return;
    state.detail = document.data;
    renderDetail();
    // Keep the list row in step with what the detail shows.
    const { products: _products, sources: _sources, ...record } = document.data;
    if (state.requests.some((known) => known.id === id)) applyRecord(record);
    if (document.data.status !== 'completed') {
      state.detailTimer = setTimeout(loadDetail, POLL_MS);
    }
  } catch (error) {
    if (error instanceof SignedOutError || seq !== state.detailSeq) return;
    const box = h('div', { class: 'form-error', role: 'alert' });
    showError(box, error);
    $('detail-title').textContent =
      error instanceof ApiError && error.status === 404 ? 'Not found' : 'Could not load';
    $('detail-sub').textContent = id;
    $('detail-content').replaceChildren(box);
    $('detail-quote').replaceChildren();
  }
}

function renderDetailLoading(id) {
  const known = state.requests.find((record) => record.id === id);
  const lines = known ? addressLines(known.address) : null;
  $('detail-title').textContent = lines?.primary ?? 'Loading…';
  $('detail-sub').textContent = lines?.secondary ?? '';
  $('detail-content').replaceChildren(h('p', { class: 'muted loading', text: 'Loading products…' }));
  $('detail-quote').replaceChildren();
}

function renderDetail() {
  const detail = state.detail;
  if (!detail) return;
  const lines = addressLines(detail.address);
  $('detail-title').textContent = lines.primary;
  $('detail-sub').textContent = lines.secondary;
  const products = Array.isArray(detail.products) ? detail.products : [];
  const sources = Array.isArray(detail.sources) ? detail.sources : [];
  $('detail-content').replaceChildren(
    detailSummary(detail, products),
    sourceSection(sources),
    productSection(detail, products),
  );
  // The same section while the request stays open: moving it would lose what the user is typing.
  const quote = products.length > 0 ? addToQuoteSection(detail) : null;
  if ($('detail-quote').firstChild !== quote) $('detail-quote').replaceChildren(...(quote ? [quote] : []));
}

/** Status, progress, key figures and the request's id and filters. */
function detailSummary(detail, products) {
  const percent = percentOf(detail.networks_progress_percentage);
  const networks = new Set(products.map((product) => product.network));
  const currencies = new Set(products.map((product) => product.currency));
  const cheapest =
    currencies.size === 1 && products.length > 0
      ? formatMoney(Math.min(...products.map((product) => product.mrc)), products[0].currency)
      : '–';
  const filters = filtersSummary(detail.filters);

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
        'data-status': detail.status,
        'data-testid': 'detail-status',
        text: STATUS_LABELS[detail.status] ?? detail.status,
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
            'aria-valuetext': `${detail.networks_progress_percentage} %`,
            'aria-label': 'Progress',
            'data-status': detail.status,
            'data-testid': 'detail-progress',
          },
          fill,
        ),
        h('span', { class: 'progress-value', text: `${detail.networks_progress_percentage} %` }),
      ),
    ),
    h(
      'dl',
      { class: 'stats' },
      h(
        'div',
        {},
        h('dt', { text: 'Products' }),
        h('dd', { 'data-testid': 'product-count', text: String(products.length) }),
      ),
      h('div', {}, h('dt', { text: 'Networks' }), h('dd', { text: String(networks.size) })),
      h('div', {}, h('dt', { text: 'From' }), h('dd', { text: cheapest === '–' ? '–' : `${cheapest}/mo` })),
      h(
        'div',
        {},
        h('dt', { text: 'Created' }),
        h('dd', {}, h('time', { datetime: detail.created_at, text: formatDate(detail.created_at) })),
      ),
    ),
    h(
      'p',
      { class: 'muted small detail-meta' },
      'ID ',
      h('code', { text: detail.id }),
      filters ? ` · Filters: ${filters}` : '',
    ),
  );
}

/** Each source the request asked, with its outcome and product count. */
function sourceSection(sources) {
  return h(
    'section',
    { class: 'detail-section', 'aria-labelledby': 'sources-title' },
    h('h3', { id: 'sources-title', text: `Sources (${sources.length})` }),
    sources.length === 0
      ? h('p', { class: 'muted', text: 'No source matches this address.' })
      : h(
          'ul',
          { class: 'sources', 'data-testid': 'sources' },
          sources.map((source) =>
            h(
              'li',
              { class: 'source', 'data-testid': 'source-row', 'data-status': source.status },
              h(
                'div',
                { class: 'source-main' },
                h('span', { class: 'source-name', text: source.name }),
                source.network && source.network !== source.name
                  ? h('span', { class: 'muted small', text: source.network })
                  : null,
              ),
              h('span', {
                class: 'badge badge-small',
                'data-status': source.status,
                text: SOURCE_STATUS_LABELS[source.status] ?? source.status,
              }),
              h('span', {
                class: 'source-count',
                text: `${source.product_count} ${source.product_count === 1 ? 'product' : 'products'}`,
              }),
              source.error
                ? h('p', {
                    class: 'source-error',
                    text: source.error.message || source.error.code || 'Failed',
                  })
                : null,
            ),
          ),
        ),
  );
}

/** The products found so far, or why there are none. */
function productSection(detail, products) {
  return h(
    'section',
    { class: 'detail-section', 'aria-labelledby': 'products-title' },
    h('h3', { id: 'products-title', text: `Products (${products.length})` }),
    products.length === 0
      ? h('p', {
          class: 'muted',
          text:
            detail.status === 'completed'
              ? 'No products are available at this address.'
              : 'Gathering… products appear here as the sources answer.',
        })
      : productTable(products, renderDetail, productSelection),
  );
}
