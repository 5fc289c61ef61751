// The page's one mutable state, shared by its modules: the session, the list, the event stream, the form's
// options and the open detail.

import { RECONNECT_MIN_MS } from './config.js';

/** Reset in part on sign-out (see `resetList`, `resetDetail`, `stopEvents`, `clearSession`). */
export const state = {
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
