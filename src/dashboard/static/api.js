// Access to the REST API on the same origin: X-Auth-Token on every call, one refresh on a 401,
// problem+json errors as ApiError.

import { setSession } from './session.js';
import { state } from './state.js';

/** An error answer of the API; `problem` is its problem+json document (null when there was none). */
export class ApiError extends Error {
  /** @param {number} status @param {any} problem */
  constructor(status, problem) {
    super(problem?.detail || problem?.title || `The request failed (HTTP ${status}).`);
    this.status = status;
    this.problem = problem;
  }
}

/** Thrown instead of a 401 once the user is signed out: callers drop it silently. */
export class SignedOutError extends Error {}

/** @type {Promise<boolean> | null} */
let refreshing = null;

/** @type {(message: string) => void} */
let sessionEnded = () => {};

/**
 * Sets what happens when the session cannot be renewed (the app signs out, with this message).
 * @param {(message: string) => void} handler
 */
export function onSessionEnded(handler) {
  sessionEnded = handler;
}

/**
 * Calls the REST API. A 401 refreshes the session once (with the refresh token) and retries; when that
 * fails too, the session ends (see `onSessionEnded`).
 * @param {string} method
 * @param {string} path
 * @param {unknown} [body] sent as JSON
 * @returns {Promise<any>} the JSON document of a 2xx answer (null when empty)
 * @throws {ApiError} on any other answer; {SignedOutError} once the session has ended; a TypeError when
 *   the service cannot be reached
 */
export async function api(method, path, body, retry = true) {
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
    sessionEnded(
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
