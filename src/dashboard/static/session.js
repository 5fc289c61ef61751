// The signed-in session, kept in sessionStorage so a reload stays signed in (in this tab only), and the
// instance it belongs to.

import { state } from './state.js';

const SESSION_KEY = 'connectivity-gateway.session';

/** The session saved in this tab, or null when there is none (or it is unreadable). */
export function loadSession() {
  try {
    const saved = JSON.parse(sessionStorage.getItem(SESSION_KEY) ?? 'null');
    return saved && typeof saved.authToken === 'string' ? saved : null;
  } catch {
    return null;
  }
}

/**
 * Makes a session current and saves it for this tab.
 * @param {{authToken: string, refreshToken: string | null, user: any}} session
 */
export function setSession(session) {
  state.session = session;
  sessionStorage.setItem(SESSION_KEY, JSON.stringify(session));
}

/** Forgets the session, in memory and in this tab's storage. */
export function clearSession() {
  state.session = null;
  sessionStorage.removeItem(SESSION_KEY);
}

/**
 * The instance id in an `sse_jwt`: its `mercure.subscribe[0]` topic is `<instance_id>/availability_request`.
 * @param {string} jwt
 * @returns {string | null} null when the token is unreadable or names another topic
 */
export function instanceFromJwt(jwt) {
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
