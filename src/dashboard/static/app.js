// Live dashboard of the Connectivity Gateway: plain ES modules, no framework, no build step.
// Talks to the REST API on the same origin (see README "The contract's flow with curl") and to the
// Mercure-compatible event stream; falls back to polling while the stream is unavailable.
// This entry wires the modules together and moves between signed in and signed out.

import { onSessionEnded } from './api.js';
import { $ } from './dom.js';
import { connectEvents, stopEvents } from './events.js';
import { renderSession } from './header.js';
import { bindOrderPage, hideOrderPage } from './order-page.js';
import { bindOrdersList, resetOrdersList } from './orders.js';
import { bindPlaceOrder } from './place-order.js';
import { hideQuotePage } from './quote-page.js';
import { bindDetail, resetDetail } from './request-detail.js';
import { bindRequestForm, loadOptionsOnce } from './request-form.js';
import { bindList, loadList, resetList } from './requests-list.js';
import { bindRouter, route } from './router.js';
import { clearSession, loadSession } from './session.js';
import { bindSignIn, showSignIn } from './signin.js';
import { state } from './state.js';

/** Shows the app for the current session: its header, the page of the hash, then live updates. */
function enterApp() {
  $('signin-view').hidden = true;
  $('session').hidden = false;
  $('nav').hidden = false;
  renderSession();
  loadOptionsOnce();
  loadList().then(() => {
    if (state.session) connectEvents();
  });
  route();
}

/**
 * Ends the session: stops every update, forgets the lists and the open pages, back to sign-in.
 * @param {string} [message] shown on the sign-in form
 */
function signOut(message) {
  clearSession();
  stopEvents();
  resetList();
  resetDetail();
  resetOrdersList();
  hideOrderPage();
  hideQuotePage();
  for (const id of ['orders-view', 'quote-view', 'order-view']) $(id).hidden = true;
  $('nav').hidden = true;
  if (location.hash) history.replaceState(null, '', location.pathname + location.search);
  showSignIn(message);
}

function boot() {
  bindRequestForm();
  bindSignIn(enterApp);
  $('sign-out').addEventListener('click', () => signOut());
  bindList();
  bindDetail();
  bindOrdersList();
  bindPlaceOrder();
  bindOrderPage();
  bindRouter();
  onSessionEnded(signOut);

  state.session = loadSession();
  if (state.session) enterApp();
  else showSignIn();
}

boot();
