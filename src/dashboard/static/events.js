// Live updates from the Mercure-compatible event stream, one stream for the instance's requests and its
// orders (the topics the `sse_jwt` grants); while it is down, the pages poll and the stream is retried with a
// growing delay.

import { RECONNECT_MAX_MS, RECONNECT_MIN_MS } from './config.js';
import { $ } from './dom.js';
import { setLive } from './header.js';
import { applyOrderEvent, reloadOrderPage } from './order-page.js';
import { loadOrders } from './orders.js';
import { refreshDetailIfChanged } from './request-detail.js';
import { applyRecord, loadList, schedulePoll } from './requests-list.js';
import { topicsFromJwt } from './session.js';
import { state } from './state.js';

/** Closes the event stream, if open, so that no late message or error of it is handled. */
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

/** Stops live updates: closes the stream and cancels a pending reconnect (on sign-out). */
export function stopEvents() {
  closeEvents();
  clearTimeout(state.reconnectTimer);
}

/** Opens the event stream with the latest `sse_jwt`; on an error, fetches a fresh token and reconnects. */
export function connectEvents() {
  closeEvents();
  clearTimeout(state.reconnectTimer);
  if (!state.session) return;
  if (!state.sseJwt || !state.instanceId) {
    setLive('polling');
    scheduleReconnect();
    return;
  }
  const instance = state.instanceId;
  const topics = topicsFromJwt(state.sseJwt).filter(
    (topic) => topic === `${instance}/availability_request` || topic === `${instance}/order`,
  );
  const query = topics.map((topic) => `topic=${encodeURIComponent(topic)}`).join('&');
  const url = `/.well-known/mercure?${query}&authorization=${encodeURIComponent(state.sseJwt)}`;
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
      const record = JSON.parse(event.data);
      if (record?._document_type === 'order') applyOrderEvent(record);
      else if (applyRecord(record)) refreshDetailIfChanged(record);
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
    if (!state.session) return;
    reloadOrderPage();
    if (!$('orders-view').hidden) loadOrders();
    connectEvents();
  }, delay);
}
