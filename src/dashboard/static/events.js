// Live updates from the Mercure-compatible event stream; while it is down, the list polls and the
// stream is retried with a growing delay.

import { RECONNECT_MAX_MS, RECONNECT_MIN_MS } from './config.js';
import { setLive } from './header.js';
import { refreshDetailIfChanged } from './request-detail.js';
import { applyRecord, loadList, schedulePoll } from './requests-list.js';
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
      const record = JSON.parse(event.data);
      if (applyRecord(record)) refreshDetailIfChanged(record);
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
