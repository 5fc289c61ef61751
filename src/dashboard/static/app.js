// Live dashboard of the Connectivity Gateway: plain ES module, no framework, no build step.
// Talks to the REST API on the same origin (see README "The contract's flow with curl") and to the
// Mercure-compatible event stream; falls back to polling while the stream is unavailable.

const SESSION_KEY = 'connectivity-gateway.session';
const PAGE_SIZE = 25;
/** Poll the list this often while a visible request is still gathering. */
const POLL_MS = 5_000;
/** …and this often while the event stream is down, to see requests made elsewhere. */
const SLOW_POLL_MS = 30_000;
const RECONNECT_MIN_MS = 2_000;
const RECONNECT_MAX_MS = 60_000;

const COUNTRIES = ['NL', 'BE', 'DE', 'GB', 'FR'];
const DEFAULT_COUNTRY = 'NL';
/** Example values shown as placeholders and in validation messages. */
const EXAMPLES = {
  NL: { postal_code: '1016 XA', house_number: '206', street: 'Lijnbaansgracht', city: 'Amsterdam' },
  BE: { postal_code: '1000', house_number: '12', street: 'Wetstraat', city: 'Brussel' },
  DE: { postal_code: '10115', house_number: '5', street: 'Invalidenstraße', city: 'Berlin' },
  GB: { postal_code: 'SW1A1AA', house_number: '10', street: 'Downing Street', city: 'London' },
  FR: { postal_code: '75001', house_number: '1', street: 'Rue de Rivoli', city: 'Paris' },
};
/** Address fields in reading order; the options endpoint decides which exist and which are required. */
const FIELD_ORDER = ['street', 'house_number', 'house_number_addition', 'postal_code', 'city'];
const AUTOCOMPLETE = {
  street: 'address-line1',
  house_number: 'off',
  house_number_addition: 'off',
  postal_code: 'postal-code',
  city: 'address-level2',
};
/** Shorter visible labels where the options endpoint's name is long (the full name stays for screen readers). */
const SHORT_LABELS = { house_number_addition: 'Addition' };
const STATUS_LABELS = { pending: 'Pending', in_progress: 'In progress', completed: 'Completed' };
const STATUS_RANK = { pending: 0, in_progress: 1, completed: 2 };
const SOURCE_STATUS_LABELS = {
  queued: 'Queued',
  running: 'Running',
  succeeded: 'Answered',
  failed: 'Failed',
};
const FILTER_GROUPS = [
  { key: 'networks', legend: 'Networks' },
  { key: 'technology_types', legend: 'Technology' },
  { key: 'connection_types', legend: 'Connection type' },
  { key: 'bandwidths', legend: 'Bandwidth (down/up)' },
  { key: 'contract_terms', legend: 'Contract term' },
];
const PRODUCT_COLUMNS = [
  { key: 'network', label: 'Network' },
  { key: 'technology_type', label: 'Technology' },
  { key: 'connection_type', label: 'Connection' },
  { key: 'bandwidth', label: 'Bandwidth', numeric: true },
  { key: 'contract_term', label: 'Term', numeric: true },
  { key: 'mrc', label: 'Monthly', numeric: true },
  { key: 'nrc', label: 'One-off', numeric: true },
];

// ---------------------------------------------------------------------------------------------------
// State and small helpers

const state = {
  /** @type {{authToken: string, refreshToken: string | null, user: any} | null} */
  session: null,
  page: 1,
  /** @type {any[]} list records of the current page, newest first */
  requests: [],
  /** @type {any} */
  pagination: null,
  listLoaded: false,
  /** @type {string | null} */
  sseJwt: null,
  /** @type {string | null} */
  instanceId: null,
  /** @type {EventSource | null} */
  events: null,
  eventsOpen: false,
  reconnectDelay: RECONNECT_MIN_MS,
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  reconnectTimer: undefined,
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  pollTimer: undefined,
  listSeq: 0,
  /** @type {any} options document of the selected country */
  options: null,
  optionsSeq: 0,
  /** @type {string | null} */
  detailId: null,
  /** @type {any} */
  detail: null,
  detailSeq: 0,
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  detailTimer: undefined,
  /** @type {{key: string, dir: 1 | -1} | null} */
  sort: null,
  /** @type {Set<string>} ids to highlight once they appear */
  justCreated: new Set(),
};

/** @type {Map<string, HTMLTableRowElement>} */
const rows = new Map();

/** @param {string} id */
const $ = (id) => /** @type {HTMLElement} */ (document.getElementById(id));

/**
 * Creates an element. Text goes through textContent only: nothing from the API is parsed as HTML.
 * @param {string} tag
 * @param {Record<string, any>} [props]
 * @param {...any} children
 */
function h(tag, props = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (value === null || value === undefined || value === false) continue;
    if (key === 'class') el.className = value;
    else if (key === 'text') el.textContent = value;
    else if (key.startsWith('on') && typeof value === 'function') el.addEventListener(key.slice(2), value);
    else el.setAttribute(key, value === true ? '' : String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : String(child));
  }
  return el;
}

const dateFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
const numberFormat = new Intl.NumberFormat(undefined, { maximumFractionDigits: 2 });
/** @type {Map<string, Intl.NumberFormat>} */
const moneyFormats = new Map();
let regionNames = null;
try {
  regionNames = new Intl.DisplayNames(undefined, { type: 'region' });
} catch {
  regionNames = null;
}

/** @param {string} code */
function countryName(code) {
  return regionNames?.of(code) ?? code;
}

/** @param {string} iso */
function formatDate(iso) {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : dateFormat.format(date);
}

/** @param {number} amount @param {string} currency */
function formatMoney(amount, currency) {
  let format = moneyFormats.get(currency);
  if (!format) {
    try {
      format = new Intl.NumberFormat(undefined, { style: 'currency', currency });
    } catch {
      format = new Intl.NumberFormat(undefined, { minimumFractionDigits: 2, maximumFractionDigits: 2 });
    }
    moneyFormats.set(currency, format);
  }
  return format.format(amount);
}

/** Bandwidth in kbps as "100/10 Mbit/s" (or Gbit/s when both directions are whole gigabits). */
function formatBandwidth(bandwidth) {
  const { download, upload } = bandwidth;
  if (
    download >= 1_000_000 &&
    upload >= 1_000_000 &&
    download % 1_000_000 === 0 &&
    upload % 1_000_000 === 0
  ) {
    return `${numberFormat.format(download / 1_000_000)}/${numberFormat.format(upload / 1_000_000)} Gbit/s`;
  }
  return `${numberFormat.format(download / 1000)}/${numberFormat.format(upload / 1000)} Mbit/s`;
}

/** @param {number} months */
function formatTerm(months) {
  return `${months} months`;
}

/** @param {number} value */
function formatCoordinate(value) {
  return Number(value).toFixed(5);
}

/** The two display lines of an address record: fields, or the coordinates it was given as. */
function addressLines(address) {
  const a = address ?? {};
  const number = [a.house_number, a.house_number_addition].filter(Boolean).join(' ');
  const place = [a.city, a.country_code].filter(Boolean).join(', ');
  if (!a.street && !a.postal_code && !a.house_number && a.coordinates) {
    return {
      primary: `${formatCoordinate(a.coordinates.latitude)}, ${formatCoordinate(a.coordinates.longitude)}`,
      secondary: place ? `Near ${place}` : 'Coordinates',
      coordinates: true,
    };
  }
  if (!a.street) {
    return {
      primary: [a.postal_code, number].filter(Boolean).join(' ') || 'Address',
      secondary: place,
      coordinates: false,
    };
  }
  return {
    primary: [a.street, number].filter(Boolean).join(' '),
    secondary: [[a.postal_code, a.city].filter(Boolean).join(' '), a.country_code].filter(Boolean).join(', '),
    coordinates: false,
  };
}

/** A short text of the filters a request was made with, or "" without any. */
function filtersSummary(filters) {
  if (!filters) return '';
  const parts = [
    ...(filters.networks ?? []),
    ...(filters.technology_types ?? []),
    ...(filters.connection_types ?? []),
    ...(filters.bandwidths ?? []).map(formatBandwidth),
    ...(filters.contract_terms ?? []).map(formatTerm),
  ];
  return parts.join(' · ');
}

/** @param {string} value */
function percentOf(value) {
  const number = Number.parseFloat(value);
  return Number.isFinite(number) ? Math.min(100, Math.max(0, number)) : 0;
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

/** The instance id in an `sse_jwt`: its `mercure.subscribe[0]` topic is `<instance_id>/availability_request`. */
function instanceFromJwt(jwt) {
  try {
    const payload = jwt.split('.')[1] ?? '';
    const base64 = payload
      .replace(/-/g, '+')
      .replace(/_/g, '/')
      .padEnd(Math.ceil(payload.length / 4) * 4, '=');
    const bytes = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
    const claims = JSON.parse(new TextDecoder().decode(bytes));
    const topic = claims?.mercure?.subscribe?.[0];
    if (typeof topic !== 'string') return null;
    const suffix = '/availability_request';
    return topic.endsWith(suffix) ? topic.slice(0, -suffix.length) : null;
  } catch {
    return null;
  }
}

/** @param {string} message */
function announce(message) {
  const announcer = $('announcer');
  announcer.textContent = '';
  requestAnimationFrame(() => {
    announcer.textContent = message;
  });
}

// ---------------------------------------------------------------------------------------------------
// API access: X-Auth-Token on every call, one refresh on a 401, problem+json errors

class ApiError extends Error {
  /** @param {number} status @param {any} problem */
  constructor(status, problem) {
    super(problem?.detail || problem?.title || `The request failed (HTTP ${status}).`);
    this.status = status;
    this.problem = problem;
  }
}

class SignedOutError extends Error {}

/** @type {Promise<boolean> | null} */
let refreshing = null;

/**
 * Calls the REST API. A 401 refreshes the session once (with the refresh token) and retries; when that
 * fails too, the user is sent back to sign in.
 * @param {string} method @param {string} path @param {unknown} [body]
 */
async function api(method, path, body, retry = true) {
  const headers = { accept: 'application/json' };
  const token = state.session?.authToken ?? null;
  if (token) headers['x-auth-token'] = token;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(path, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
    cache: 'no-store',
    credentials: 'same-origin',
  });
  if (response.status === 401 && path !== '/authentication') {
    if (!state.session) throw new SignedOutError('Signed out.');
    if (retry && (state.session.authToken !== token || (await refreshSession()))) {
      return api(method, path, body, false);
    }
    signOut(
      state.listLoaded
        ? 'Your session has ended. Please sign in again.'
        : 'The auth token was not accepted. Please sign in again.',
    );
    throw new SignedOutError('Signed out.');
  }
  const text = await response.text();
  let document = null;
  try {
    document = text ? JSON.parse(text) : null;
  } catch {
    document = null;
  }
  if (!response.ok) throw new ApiError(response.status, document);
  return document;
}

/** Refreshes the auth token with the refresh token; concurrent callers share one refresh. */
function refreshSession() {
  const refreshToken = state.session?.refreshToken;
  if (!refreshToken) return Promise.resolve(false);
  refreshing ??= (async () => {
    try {
      const document = await api('POST', '/authentication', { auth_refresh_token: refreshToken }, false);
      if (!state.session) return false;
      setSession({
        authToken: document.data.auth_token,
        refreshToken: document.data.auth_refresh_token ?? null,
        user: document.data.user ?? state.session.user,
      });
      return true;
    } catch {
      return false;
    } finally {
      refreshing = null;
    }
  })();
  return refreshing;
}

/** The text of a problem+json error: its detail and each `errors[]` entry. */
function problemMessages(error) {
  if (error instanceof ApiError) {
    const problem = error.problem ?? {};
    const detail = problem.detail || problem.title || error.message;
    const items = Array.isArray(problem.errors)
      ? problem.errors.map((item) => `${item.path ? `${item.path}: ` : ''}${item.message ?? ''}`)
      : [];
    return { detail, items };
  }
  return { detail: 'The service could not be reached. Check your connection and try again.', items: [] };
}

/** Shows an error (problem+json or network) in a container. */
function showError(container, error) {
  const { detail, items } = problemMessages(error);
  container.replaceChildren(
    h('p', { class: 'form-error-title', text: detail }),
    items.length > 0
      ? h(
          'ul',
          { class: 'form-error-list' },
          items.map((item) => h('li', { text: item })),
        )
      : null,
  );
  container.hidden = false;
}

// ---------------------------------------------------------------------------------------------------
// Session

function loadSession() {
  try {
    const saved = JSON.parse(sessionStorage.getItem(SESSION_KEY) ?? 'null');
    return saved && typeof saved.authToken === 'string' ? saved : null;
  } catch {
    return null;
  }
}

function setSession(session) {
  state.session = session;
  sessionStorage.setItem(SESSION_KEY, JSON.stringify(session));
}

/** @param {string} [message] shown on the sign-in form */
function signOut(message) {
  state.session = null;
  sessionStorage.removeItem(SESSION_KEY);
  closeEvents();
  clearTimeout(state.reconnectTimer);
  clearTimeout(state.pollTimer);
  clearTimeout(state.detailTimer);
  state.pollTimer = undefined;
  state.requests = [];
  state.pagination = null;
  state.listLoaded = false;
  state.sseJwt = null;
  state.instanceId = null;
  state.page = 1;
  state.detailId = null;
  state.detail = null;
  rows.clear();
  $('requests-body').replaceChildren();
  const dialog = /** @type {HTMLDialogElement} */ ($('detail'));
  if (dialog.open) dialog.close();
  if (location.hash) history.replaceState(null, '', location.pathname + location.search);
  showSignIn(message);
}

function showSignIn(message) {
  $('app-view').hidden = true;
  $('session').hidden = true;
  $('signin-view').hidden = false;
  const error = $('signin-error');
  error.textContent = message ?? '';
  error.hidden = !message;
  /** @type {HTMLInputElement} */ ($('client-id')).focus();
}

function enterApp() {
  $('signin-view').hidden = true;
  $('app-view').hidden = false;
  $('session').hidden = false;
  renderSession();
  if (!state.options) loadOptions(/** @type {HTMLSelectElement} */ ($('country')).value);
  loadList().then(() => {
    if (state.session) connectEvents();
  });
  route();
}

function renderSession() {
  const user = state.session?.user;
  const name = user ? [user.first_name, user.last_name].filter(Boolean).join(' ') || user.email : '';
  $('user-name').textContent = name || 'Signed in with a token';
  if (user?.email && name !== user.email) $('user-name').title = user.email;
  $('instance-id').textContent = state.instanceId ? `Instance ${state.instanceId}` : '';
}

async function onSignIn(event) {
  event.preventDefault();
  const form = /** @type {HTMLFormElement} */ (event.currentTarget);
  const clientId = /** @type {HTMLInputElement} */ ($('client-id'));
  const clientSecret = /** @type {HTMLInputElement} */ ($('client-secret'));
  const error = $('signin-error');
  if (!clientId.value.trim() || !clientSecret.value) {
    error.textContent = 'Enter the client ID and the client secret.';
    error.hidden = false;
    (clientId.value.trim() ? clientSecret : clientId).focus();
    return;
  }
  const button = /** @type {HTMLButtonElement} */ (form.querySelector('button[type=submit]'));
  button.disabled = true;
  button.textContent = 'Signing in…';
  try {
    const document = await api('POST', '/authentication', {
      client_id: clientId.value.trim(),
      client_secret: clientSecret.value,
    });
    setSession({
      authToken: document.data.auth_token,
      refreshToken: document.data.auth_refresh_token ?? null,
      user: document.data.user ?? null,
    });
    clientSecret.value = '';
    error.hidden = true;
    enterApp();
  } catch (caught) {
    error.textContent =
      caught instanceof ApiError && caught.status === 401
        ? 'These credentials were not accepted.'
        : problemMessages(caught).detail;
    error.hidden = false;
  } finally {
    button.disabled = false;
    button.textContent = 'Sign in';
  }
}

function onTokenSignIn(event) {
  event.preventDefault();
  const input = /** @type {HTMLTextAreaElement} */ ($('auth-token'));
  const token = input.value.trim();
  if (!token) {
    input.focus();
    return;
  }
  input.value = '';
  setSession({ authToken: token, refreshToken: null, user: null });
  enterApp();
}

// ---------------------------------------------------------------------------------------------------
// The list of availability requests

async function loadList() {
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
function schedulePoll() {
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

/** @param {Element} element @param {string} className */
function flash(element, className) {
  element.classList.remove(className);
  // Restart the animation: reading layout between remove and add.
  void (/** @type {HTMLElement} */ (element).offsetWidth);
  element.classList.add(className);
}

/** Applies one event (a list record) to the list and to the open detail. */
function applyRecord(record) {
  if (!record || typeof record.id !== 'string') return;
  const index = state.requests.findIndex((known) => known.id === record.id);
  const previous = new Map(state.requests.map((known) => [known.id, known]));
  if (index >= 0) {
    const known = state.requests[index];
    if (!isAtLeastAsRecent(record, known)) return;
    state.requests[index] = record;
  } else {
    const newest = state.requests[0];
    const isNew =
      state.page === 1 && (!newest || Date.parse(record.created_at) >= Date.parse(newest.created_at));
    if (!isNew) return;
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
  if (state.detailId === record.id && state.detail && !sameProgress(record, state.detail))
    refreshDetailSoon();
}

/** Whether two records of one request show the same state. */
function sameProgress(a, b) {
  return (
    a.status === b.status &&
    a.networks_progress_percentage === b.networks_progress_percentage &&
    a.updated_at === b.updated_at
  );
}

// ---------------------------------------------------------------------------------------------------
// Live updates: the Mercure-compatible event stream

function setLive(mode) {
  const live = $('live');
  live.dataset.state = mode;
  const text = { live: 'Live', connecting: 'Connecting…', polling: 'Auto-refresh' }[mode] ?? mode;
  $('live-text').textContent = text;
  live.title =
    mode === 'live'
      ? 'Receiving updates as they happen.'
      : mode === 'polling'
        ? 'The live stream is unavailable; the list refreshes every few seconds.'
        : 'Connecting to the live stream.';
}

function closeEvents() {
  if (state.events) {
    state.events.onopen = null;
    state.events.onmessage = null;
    state.events.onerror = null;
    state.events.close();
  }
  state.events = null;
  state.eventsOpen = false;
}

/** Opens the event stream with the latest `sse_jwt`; on an error, fetches a fresh token and reconnects. */
function connectEvents() {
  closeEvents();
  clearTimeout(state.reconnectTimer);
  if (!state.session) return;
  if (!state.sseJwt || !state.instanceId) {
    setLive('polling');
    scheduleReconnect();
    return;
  }
  const topic = `${state.instanceId}/availability_request`;
  const url = `/.well-known/mercure?topic=${encodeURIComponent(topic)}&authorization=${encodeURIComponent(state.sseJwt)}`;
  const source = new EventSource(url);
  state.events = source;
  setLive('connecting');
  source.onopen = () => {
    state.eventsOpen = true;
    state.reconnectDelay = RECONNECT_MIN_MS;
    setLive('live');
  };
  source.onmessage = (event) => {
    try {
      applyRecord(JSON.parse(event.data));
    } catch {
      // Not a record (e.g. a comment-like payload): ignore it.
    }
  };
  source.onerror = () => {
    if (state.events !== source) return;
    closeEvents();
    setLive('polling');
    schedulePoll();
    scheduleReconnect();
  };
}

function scheduleReconnect() {
  clearTimeout(state.reconnectTimer);
  const delay = state.reconnectDelay;
  state.reconnectDelay = Math.min(delay * 2, RECONNECT_MAX_MS);
  state.reconnectTimer = setTimeout(async () => {
    if (!state.session) return;
    await loadList(); // a fresh sse_jwt, and whatever was missed meanwhile
    if (state.session) connectEvents();
  }, delay);
}

// ---------------------------------------------------------------------------------------------------
// New request form: fields and filters from the options endpoint

/** An HTML `pattern` for a regex, when it compiles the way browsers compile patterns (`v` flag). */
function htmlPattern(regex) {
  const body = regex.replace(/^\^/, '').replace(/\$$/, '');
  try {
    new RegExp(`^(?:${body})$`, 'v');
    return body;
  } catch {
    return null;
  }
}

/** @param {string} regex */
function compile(regex) {
  try {
    return new RegExp(regex);
  } catch {
    return null;
  }
}

function currentCountry() {
  return /** @type {HTMLSelectElement} */ ($('country')).value || DEFAULT_COUNTRY;
}

function usingCoordinates() {
  return /** @type {HTMLInputElement} */ ($('use-coordinates')).checked;
}

/** @param {string} country */
async function loadOptions(country) {
  const seq = ++state.optionsSeq;
  const container = $('address-fields');
  container.setAttribute('aria-busy', 'true');
  try {
    const document = await api(
      'GET',
      `/availability-requests/options?country_code=${encodeURIComponent(country)}`,
    );
    if (seq !== state.optionsSeq) return;
    state.options = document.data;
    renderAddressFields(country, document.data?.filters?.fields ?? []);
    renderFilters(document.data?.filters?.filters ?? {});
  } catch (error) {
    if (error instanceof SignedOutError || seq !== state.optionsSeq) return;
    const box = h('div', { class: 'form-error', role: 'alert' });
    showError(box, error);
    container.replaceChildren(box);
  } finally {
    if (seq === state.optionsSeq) container.setAttribute('aria-busy', 'false');
  }
}

function renderAddressFields(country, fields) {
  const container = $('address-fields');
  const values = new Map();
  for (const input of container.querySelectorAll('input')) values.set(input.name, input.value);
  const byKey = new Map(
    fields.filter((field) => field.key !== 'country_code').map((field) => [field.key, field]),
  );
  const keys = [
    ...FIELD_ORDER.filter((key) => byKey.has(key)),
    ...[...byKey.keys()].filter((key) => !FIELD_ORDER.includes(key)),
  ];
  const examples = EXAMPLES[country] ?? {};
  const disabled = usingCoordinates();
  container.replaceChildren(
    ...keys.map((key) => {
      const field = byKey.get(key);
      const id = `field-${key}`;
      const pattern = htmlPattern(field.regex);
      const input = h('input', {
        id,
        name: key,
        type: 'text',
        autocomplete: AUTOCOMPLETE[key] ?? 'off',
        required: field.required,
        pattern,
        placeholder: examples[key] ? `e.g. ${examples[key]}` : null,
        'aria-describedby': `${id}-error`,
        'aria-invalid': 'false',
        'data-testid': `field-${key}`,
        'data-regex': field.regex,
        'data-label': field.name,
        disabled,
      });
      input.value = values.get(key) ?? '';
      input.addEventListener('blur', () => validateInput(input));
      input.addEventListener('input', () => {
        if (input.getAttribute('aria-invalid') === 'true') validateInput(input);
      });
      return h(
        'div',
        { class: `field field-${key}` },
        h(
          'label',
          { for: id },
          SHORT_LABELS[key]
            ? [
                h('span', { class: 'visually-hidden', text: field.name }),
                h('span', { 'aria-hidden': 'true', text: SHORT_LABELS[key] }),
              ]
            : field.name,
          field.required
            ? h('span', { class: 'required', title: 'required', 'aria-hidden': 'true', text: ' *' })
            : h('span', { class: 'optional', text: ' (optional)' }),
        ),
        input,
        h('p', { class: 'field-error', id: `${id}-error`, 'data-testid': `error-${key}` }),
      );
    }),
  );
}

/** Validates one address or coordinate input; shows and returns its message ("" when valid). */
function validateInput(input) {
  const value = input.value.trim();
  const label = input.dataset.label ?? input.name;
  let message = '';
  if (input.disabled) message = '';
  else if (value === '') {
    if (input.required) message = `${label} is required.`;
  } else if (input.type === 'number') {
    const number = Number(value);
    const min = Number(input.min);
    const max = Number(input.max);
    if (!Number.isFinite(number) || number < min || number > max) {
      message = `${label} must be a number from ${min} to ${max}.`;
    }
  } else {
    const regex = input.dataset.regex ? compile(input.dataset.regex) : null;
    if (regex && !regex.test(value)) {
      const example = EXAMPLES[currentCountry()]?.[input.name];
      message = example ? `${label} must look like ${example}.` : `${label} is not in the expected format.`;
    }
  }
  input.setCustomValidity(message);
  input.setAttribute('aria-invalid', message ? 'true' : 'false');
  const error = document.getElementById(`${input.id}-error`);
  if (error) error.textContent = message;
  return message;
}

function renderFilters(filters) {
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

function updateFilterCount() {
  const count = $('filter-groups').querySelectorAll('input:checked').length;
  const pill = $('filter-count');
  pill.textContent = `${count} selected`;
  pill.hidden = count === 0;
}

function onToggleCoordinates() {
  const coordinates = usingCoordinates();
  $('coordinate-fields').hidden = !coordinates;
  $('address-fields').hidden = coordinates;
  for (const input of $('address-fields').querySelectorAll('input')) {
    input.disabled = coordinates;
    if (coordinates) validateInput(input);
  }
  for (const id of ['latitude', 'longitude']) {
    const input = /** @type {HTMLInputElement} */ ($(id));
    input.disabled = !coordinates;
    input.required = coordinates;
    input.dataset.label = id === 'latitude' ? 'Latitude' : 'Longitude';
    if (!coordinates) validateInput(input);
  }
}

/** Builds the one-element body of `POST /availability-requests`, or null when a field is invalid. */
function buildRequest() {
  const inputs = usingCoordinates()
    ? [/** @type {HTMLInputElement} */ ($('latitude')), /** @type {HTMLInputElement} */ ($('longitude'))]
    : [.../** @type {NodeListOf<HTMLInputElement>} */ ($('address-fields').querySelectorAll('input'))];
  const invalid = inputs.filter((input) => validateInput(input) !== '');
  if (invalid.length > 0) {
    invalid[0]?.focus();
    return null;
  }
  let address;
  if (usingCoordinates()) {
    address = {
      coordinates: {
        latitude: Number(/** @type {HTMLInputElement} */ ($('latitude')).value),
        longitude: Number(/** @type {HTMLInputElement} */ ($('longitude')).value),
      },
    };
  } else {
    address = { country_code: currentCountry() };
    for (const input of inputs) {
      const value = input.value.trim();
      if (value !== '') address[input.name] = value;
    }
  }
  const element = { address };
  for (const { key } of FILTER_GROUPS) {
    const checked = [...$('filter-groups').querySelectorAll(`input[name="${key}"]:checked`)];
    if (checked.length > 0)
      element[key] = checked.map((input) => JSON.parse(/** @type {HTMLInputElement} */ (input).value));
  }
  return [element];
}

/** Shows the server's field errors (`/0/address/postal_code`) next to their inputs. */
function showFieldErrors(error) {
  if (!(error instanceof ApiError) || !Array.isArray(error.problem?.errors)) return;
  for (const item of error.problem.errors) {
    const match = /^\/0\/address\/(?:coordinates\/)?([a-z_]+)$/.exec(item.path ?? '');
    if (!match) continue;
    const key = match[1];
    const input = /** @type {HTMLInputElement | null} */ (
      key === 'latitude' || key === 'longitude' ? $(key) : document.getElementById(`field-${key}`)
    );
    if (!input) continue;
    input.setAttribute('aria-invalid', 'true');
    const box = document.getElementById(`${input.id}-error`);
    if (box) box.textContent = item.message ?? '';
  }
}

async function onSubmitRequest(event) {
  event.preventDefault();
  const errorBox = $('request-error');
  const message = $('request-message');
  errorBox.hidden = true;
  message.textContent = '';
  const body = buildRequest();
  if (!body) {
    errorBox.replaceChildren(
      h('p', { class: 'form-error-title', text: 'Please correct the highlighted fields.' }),
    );
    errorBox.hidden = false;
    return;
  }
  const button = /** @type {HTMLButtonElement} */ ($('request-submit'));
  button.disabled = true;
  button.textContent = 'Submitting…';
  try {
    const document = await api('POST', '/availability-requests', body);
    for (const created of document.data ?? []) state.justCreated.add(created.id);
    message.textContent = document.message ?? 'Availability request created.';
    resetRequestForm();
    state.page = 1;
    await loadList();
  } catch (error) {
    if (error instanceof SignedOutError) return;
    showError(errorBox, error);
    showFieldErrors(error);
  } finally {
    button.disabled = false;
    button.textContent = 'Check availability';
  }
}

function resetRequestForm() {
  for (const input of $('address-fields').querySelectorAll('input')) {
    input.value = '';
    input.setCustomValidity('');
    input.setAttribute('aria-invalid', 'false');
  }
  for (const id of ['latitude', 'longitude']) /** @type {HTMLInputElement} */ ($(id)).value = '';
  for (const error of document.querySelectorAll('#request-form .field-error')) error.textContent = '';
}

// ---------------------------------------------------------------------------------------------------
// Detail view: products and per-source outcomes

/** Opens or closes the detail dialog after the location hash (`#/requests/<id>`). */
function route() {
  const match = /^#\/requests\/([^/]+)$/.exec(location.hash);
  const dialog = /** @type {HTMLDialogElement} */ ($('detail'));
  if (match && state.session) {
    const id = decodeURIComponent(match[1] ?? '');
    if (state.detailId !== id) {
      state.detailId = id;
      state.detail = null;
      state.sort = null;
      renderDetailLoading(id);
    }
    if (!dialog.open) dialog.showModal();
    loadDetail();
  } else {
    state.detailId = null;
    state.detail = null;
    clearTimeout(state.detailTimer);
    if (dialog.open) dialog.close();
  }
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
    $('detail-body').replaceChildren(box);
  }
}

let detailRefresh;
function refreshDetailSoon() {
  clearTimeout(detailRefresh);
  detailRefresh = setTimeout(loadDetail, 400);
}

function renderDetailLoading(id) {
  const known = state.requests.find((record) => record.id === id);
  const lines = known ? addressLines(known.address) : null;
  $('detail-title').textContent = lines?.primary ?? 'Loading…';
  $('detail-sub').textContent = lines?.secondary ?? '';
  $('detail-body').replaceChildren(h('p', { class: 'muted loading', text: 'Loading products…' }));
}

function renderDetail() {
  const detail = state.detail;
  if (!detail) return;
  const lines = addressLines(detail.address);
  const percent = percentOf(detail.networks_progress_percentage);
  $('detail-title').textContent = lines.primary;
  $('detail-sub').textContent = lines.secondary;
  const products = Array.isArray(detail.products) ? detail.products : [];
  const sources = Array.isArray(detail.sources) ? detail.sources : [];
  const networks = new Set(products.map((product) => product.network));
  const currencies = new Set(products.map((product) => product.currency));
  const cheapest =
    currencies.size === 1 && products.length > 0
      ? formatMoney(Math.min(...products.map((product) => product.mrc)), products[0].currency)
      : '–';
  const filters = filtersSummary(detail.filters);

  const fill = h('span', { class: 'progress-fill' });
  fill.style.width = `${percent}%`;
  const summary = h(
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

  const sourceList = h(
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

  const productSection = h(
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
      : productTable(products),
  );
  $('detail-body').replaceChildren(summary, sourceList, productSection);
}

function sortValue(product, key) {
  if (key === 'bandwidth') return product.bandwidth.download * 1e7 + product.bandwidth.upload;
  return product[key];
}

function productTable(products) {
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
              renderDetail();
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
      { class: 'products-table', 'data-testid': 'products' },
      h('caption', { class: 'visually-hidden', text: 'Products; select a column heading to sort.' }),
      h('thead', {}, head),
      h('tbody', {}, body),
    ),
  );
}

// ---------------------------------------------------------------------------------------------------
// Start

function boot() {
  const select = /** @type {HTMLSelectElement} */ ($('country'));
  select.replaceChildren(
    ...COUNTRIES.map((code) =>
      h('option', { value: code, selected: code === DEFAULT_COUNTRY }, countryName(code)),
    ),
  );
  select.value = DEFAULT_COUNTRY;
  select.addEventListener('change', () => {
    $('request-error').hidden = true;
    for (const error of $('address-fields').querySelectorAll('.field-error')) error.textContent = '';
    loadOptions(select.value);
  });
  $('signin-form').addEventListener('submit', onSignIn);
  $('token-form').addEventListener('submit', onTokenSignIn);
  $('sign-out').addEventListener('click', () => signOut());
  $('request-form').addEventListener('submit', onSubmitRequest);
  $('use-coordinates').addEventListener('change', onToggleCoordinates);
  for (const id of ['latitude', 'longitude']) {
    const input = /** @type {HTMLInputElement} */ ($(id));
    input.dataset.label = id === 'latitude' ? 'Latitude' : 'Longitude';
    input.addEventListener('blur', () => validateInput(input));
  }
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
  const dialog = /** @type {HTMLDialogElement} */ ($('detail'));
  $('detail-close').addEventListener('click', closeDetail);
  dialog.addEventListener('close', () => {
    if (location.hash.startsWith('#/requests/')) closeDetail();
  });
  dialog.addEventListener('click', (event) => {
    if (event.target === dialog) closeDetail(); // a click on the backdrop
  });
  window.addEventListener('hashchange', route);

  state.session = loadSession();
  if (state.session) enterApp();
  else showSignIn();
}

boot();
