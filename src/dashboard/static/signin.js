// The sign-in view: client credentials exchanged for a session, or an auth token pasted as is.

import { ApiError, api } from './api.js';
import { $ } from './dom.js';
import { problemMessages } from './problems.js';
import { setSession } from './session.js';

/** @type {() => void} */
let signedIn = () => {};

/**
 * Wires both sign-in forms.
 * @param {() => void} onSignedIn called once a session is set
 */
export function bindSignIn(onSignedIn) {
  signedIn = onSignedIn;
  $('signin-form').addEventListener('submit', onSignIn);
  $('token-form').addEventListener('submit', onTokenSignIn);
}

/**
 * Shows the sign-in view instead of the app, focused on the client ID.
 * @param {string} [message] shown on the sign-in form
 */
export function showSignIn(message) {
  $('app-view').hidden = true;
  $('session').hidden = true;
  $('signin-view').hidden = false;
  const error = $('signin-error');
  error.textContent = message ?? '';
  error.hidden = !message;
  /** @type {HTMLInputElement} */ ($('client-id')).focus();
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
    signedIn();
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
  signedIn();
}
