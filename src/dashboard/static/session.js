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
 * The topics an `sse_jwt` may subscribe to: its `mercure.subscribe` claim, e.g.
 * `["<instance_id>/availability_request", "<instance_id>/order"]` (the order topic for callers that may read
 * orders).
 * @param {string} jwt
 * @returns {string[]} empty when the token is unreadable
 */
export function topicsFromJwt(jwt) {
  try {
    const payload = jwt.split('.')[1] ?? '';
    const base64 = payload
      .replace(/-/g, '+')
      .replace(/_/g, '/')
      .padEnd(Math.ceil(payload.length / 4) * 4, '=');
    const bytes = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
    const claims = JSON.parse(new TextDecoder().decode(bytes));
    const topics = claims?.mercure?.subscribe;
    return Array.isArray(topics) ? topics.filter((topic) => typeof topic === 'string') : [];
  } catch {
    return [];
  }
}

/** The kinds of topic the dashboard follows, as the suffix after `<instance_id>/`. */
const TOPIC_KINDS = ['/availability_request', '/order'];

/**
 * The instance id in an `sse_jwt`: the part of its first topic before `/availability_request` (or `/order`).
 * @param {string} jwt
 * @returns {string | null} null when the token is unreadable or names another topic
 */
export function instanceFromJwt(jwt) {
  const topic = topicsFromJwt(jwt)[0];
  if (!topic) return null;
  const suffix = TOPIC_KINDS.find((kind) => topic.endsWith(kind));
  return suffix ? topic.slice(0, -suffix.length) : null;
}
