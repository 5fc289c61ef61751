// The top bar: who is signed in, on which instance, and whether updates arrive live.

import { $ } from './dom.js';
import { state } from './state.js';

/** Shows the signed-in user (or that a token was used) and the instance. */
export function renderSession() {
  const user = state.session?.user;
  const name = user ? [user.first_name, user.last_name].filter(Boolean).join(' ') || user.email : '';
  $('user-name').textContent = name || 'Signed in with a token';
  if (user?.email && name !== user.email) $('user-name').title = user.email;
  $('instance-id').textContent = state.instanceId ? `Instance ${state.instanceId}` : '';
}

/**
 * Shows how updates arrive.
 * @param {'live' | 'connecting' | 'polling'} mode
 */
export function setLive(mode) {
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
