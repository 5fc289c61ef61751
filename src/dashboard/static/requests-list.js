// The list of availability requests: loaded page by page, kept current by events and polling, rendered
// as a table whose rows are updated in place.

import { api, SignedOutError } from './api.js';
import { PAGE_SIZE, POLL_MS, SLOW_POLL_MS } from './config.js';
import { $, announce, flash, h } from './dom.js';
import { addressLines, filtersSummary, formatDate, percentOf, STATUS_LABELS } from './format.js';
import { renderSession } from './header.js';
import { showError } from './problems.js';
import { instanceFromJwt } from './session.js';
import { state } from './state.js';

const STATUS_RANK = { pending: 0, in_progress: 1, completed: 2 };

/** @type {Map<string, HTMLTableRowElement>} */
const rows = new Map();

/** Wires the refresh and paging buttons. */
export function bindList() {
  $('refresh').addEventListener('click', () => loadList());
  $('page-prev').addEventListener('click', () => {
    if (state.page > 1) {
      state.page -= 1;
      loadList();
    }
  });
  $('page-next').addEventListener('click', () => {
    state.page += 1;
    loadList();
  });
}

/**
 * Loads the current page of the list (and a fresh `sse_jwt`), keeping any record an event has already
 * made newer; errors show above the table. Resolves when done, never rejects.
 */
export async function loadList() {
  if (!state.session) return;
  const seq = ++state.listSeq;
  clearTimeout(state.pollTimer);
  state.pollTimer = undefined;
  try {
    const document = await api('GET', `/availability-requests?page=${state.page}&page_size=${PAGE_SIZE}`);
    if (seq !== state.listSeq || !state.session) return;
    state.sseJwt = document.sse_jwt ?? null;
    const instanceId = state.sseJwt ? instanceFromJwt(state.sseJwt) : null;
    if (instanceId) state.instanceId = instanceId;
    const previous = new Map(state.requests.map((record) => [record.id, record]));
    state.requests = (document.data ?? []).map((record) => {
      const known = previous.get(record.id);
      return known && !isAtLeastAsRecent(record, known) ? known : record;
    });
    state.pagination = document.pagination ?? null;
    state.listLoaded = true;
    $('list-error').hidden = true;
    renderSession();
    renderList(previous);
  } catch (error) {
    if (error instanceof SignedOutError || seq !== state.listSeq) return;
    showError($('list-error'), error);
  } finally {
    if (seq === state.listSeq) schedulePoll();
  }
}

/** Polls every 5 s while a visible request is gathering, and slowly while the event stream is down. */
export function schedulePoll() {
  if (!state.session || state.pollTimer !== undefined) return;
  const gathering = state.requests.some((record) => record.status !== 'completed');
  const delay = gathering ? POLL_MS : state.eventsOpen ? null : SLOW_POLL_MS;
  if (delay === null) return;
  state.pollTimer = setTimeout(() => {
    state.pollTimer = undefined;
    loadList();
  }, delay);
}

/**
 * Applies one event (a list record) to the list: an update of a listed request, or a new request at the
 * top of the first page. Stale and off-page records are ignored.
 * @returns {boolean} whether the record was applied
 */
export function applyRecord(record) {
  if (!record || typeof record.id !== 'string') return false;
  const index = state.requests.findIndex((known) => known.id === record.id);
  const previous = new Map(state.requests.map((known) => [known.id, known]));
  if (index >= 0) {
    const known = state.requests[index];
    if (!isAtLeastAsRecent(record, known)) return false;
    state.requests[index] = record;
  } else {
    const newest = state.requests[0];
    const isNew =
      state.page === 1 && (!newest || Date.parse(record.created_at) >= Date.parse(newest.created_at));
    if (!isNew) return false;
    state.requests.unshift(record);
    if (state.requests.length > PAGE_SIZE) state.requests.pop();
    if (state.pagination) {
      state.pagination.total_items += 1;
      state.pagination.total_pages = Math.ceil(
        state.pagination.total_items / (state.pagination.page_size || PAGE_SIZE),
      );
    }
  }
  renderList(previous);
  schedulePoll();
  return true;
}

/** Forgets the list and stops its polling (on sign-out). */
export function resetList() {
  clearTimeout(state.pollTimer);
  state.pollTimer = undefined;
  state.requests = [];
  state.pagination = null;
  state.listLoaded = false;
  state.sseJwt = null;
  state.instanceId = null;
  state.page = 1;
  rows.clear();
  $('requests-body').replaceChildren();
}

/** Whether record `a` is at least as recent as `b` (updated_at, then status, then progress). */
function isAtLeastAsRecent(a, b) {
  const keys = (r) => [
    Date.parse(r.updated_at) || 0,
    STATUS_RANK[r.status] ?? 0,
    percentOf(r.networks_progress_percentage),
  ];
  const ka = keys(a);
  const kb = keys(b);
  for (let i = 0; i < ka.length; i += 1) {
    if (ka[i] !== kb[i]) return ka[i] > kb[i];
  }
  return true;
}

/**
 * Brings the table in line with `state.requests`, reusing rows so progress bars animate in place.
 * @param {Map<string, any>} [previous] the records before this update, to announce status changes
 */
function renderList(previous) {
  const body = $('requests-body');
  const wanted = new Set(state.requests.map((record) => record.id));
  for (const [id, row] of rows) {
    if (!wanted.has(id)) {
      row.remove();
      rows.delete(id);
    }
  }
  let before = body.firstElementChild;
  for (const record of state.requests) {
    let row = rows.get(record.id);
    if (!row) {
      row = createRow(record);
      rows.set(record.id, row);
      if (state.justCreated.delete(record.id)) flash(row, 'row-new');
    }
    if (row !== before) body.insertBefore(row, before);
    else before = before?.nextElementSibling ?? null;
    const old = previous?.get(record.id);
    updateRow(row, record, old);
  }

  const pagination = state.pagination;
  const total = pagination?.total_items ?? state.requests.length;
  $('list-count').textContent = state.listLoaded
    ? `${total} ${total === 1 ? 'request' : 'requests'} · newest first`
    : '';
  $('empty').hidden = !(state.listLoaded && state.requests.length === 0 && state.page === 1);
  $('requests-table').hidden = state.requests.length === 0;
  const pages = Math.max(1, pagination?.total_pages ?? 1);
  $('pagination').hidden = pages <= 1 && state.page <= 1;
  $('page-info').textContent = `Page ${state.page} of ${Math.max(pages, state.page)}`;
  /** @type {HTMLButtonElement} */ ($('page-prev')).disabled = state.page <= 1;
  /** @type {HTMLButtonElement} */ ($('page-next')).disabled = state.page >= pages;
}

function createRow(record) {
  const lines = addressLines(record.address);
  const filters = filtersSummary(record.filters);
  const href = `#/requests/${encodeURIComponent(record.id)}`;
  const status = h('span', { class: 'badge', 'data-testid': 'status' });
  const fill = h('span', { class: 'progress-fill' });
  const progress = h(
    'div',
    {
      class: 'progress',
      role: 'progressbar',
      'aria-valuemin': '0',
      'aria-valuemax': '100',
      'aria-label': `Progress of ${lines.primary}`,
      'data-testid': 'progress',
    },
    fill,
  );
  const percent = h('span', { class: 'progress-value', 'aria-hidden': 'true' });
  const row = h(
    'tr',
    { 'data-testid': 'request-row', 'data-request-id': record.id },
    h(
      'td',
      { class: 'c-address', 'data-label': 'Address' },
      h(
        'a',
        { class: 'row-link', href, 'data-testid': 'request-link' },
        lines.coordinates ? h('span', { class: 'tag', text: 'GPS' }) : null,
        h('span', { class: 'address-primary', text: lines.primary }),
      ),
      h('span', { class: 'address-secondary', text: lines.secondary }),
      filters ? h('span', { class: 'address-filters', text: filters }) : null,
    ),
    h('td', { class: 'c-status', 'data-label': 'Status' }, status),
    h(
      'td',
      { class: 'c-progress', 'data-label': 'Progress' },
      h('div', { class: 'progress-line' }, progress, percent),
    ),
    h(
      'td',
      { class: 'c-created', 'data-label': 'Created' },
      h('time', {
        datetime: record.created_at,
        title: record.created_at,
        text: formatDate(record.created_at),
      }),
    ),
  );
  row.addEventListener('click', (event) => {
    if (event.target instanceof Element && event.target.closest('a')) return;
    location.hash = href;
  });
  return row;
}

/** Updates a row's status badge and progress bar in place; announces a status change. */
function updateRow(row, record, old) {
  const percent = percentOf(record.networks_progress_percentage);
  const status = /** @type {HTMLElement} */ (row.querySelector('[data-testid=status]'));
  const progress = /** @type {HTMLElement} */ (row.querySelector('[data-testid=progress]'));
  const fill = /** @type {HTMLElement} */ (row.querySelector('.progress-fill'));
  const value = /** @type {HTMLElement} */ (row.querySelector('.progress-value'));
  status.textContent = STATUS_LABELS[record.status] ?? record.status;
  status.dataset.status = record.status;
  row.dataset.status = record.status;
  progress.setAttribute('aria-valuenow', String(percent));
  progress.setAttribute('aria-valuetext', `${record.networks_progress_percentage} %`);
  progress.dataset.status = record.status;
  fill.style.width = `${percent}%`;
  value.textContent = `${Math.round(percent)} %`;
  if (old && old.status !== record.status) {
    announce(`${addressLines(record.address).primary}: ${STATUS_LABELS[record.status] ?? record.status}.`);
  }
}
