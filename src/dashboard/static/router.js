// Which page the location hash shows: the requests (`#/`, and a request's dialog `#/requests/<id>`), the open
// orders (`#/orders`), a quote (`#/quotes/<id>`) or an order (`#/orders/<id>`).

import { $ } from './dom.js';
import { hideOrderPage, showOrderPage } from './order-page.js';
import { hideOrdersList, showOrdersList } from './orders.js';
import { hideQuotePage, showQuotePage } from './quote-page.js';
import { route as routeRequestDetail } from './request-detail.js';
import { state } from './state.js';

/** The views, by name, and the element of each. */
const VIEWS = { requests: 'app-view', orders: 'orders-view', quote: 'quote-view', order: 'order-view' };

/** Shows the page of the current location hash (nothing while signed out). */
export function route() {
  if (!state.session) return;
  const hash = location.hash;
  const quote = /^#\/quotes\/([^/]+)$/.exec(hash);
  const order = /^#\/orders\/([^/]+)$/.exec(hash);
  const view = quote ? 'quote' : order ? 'order' : hash === '#/orders' ? 'orders' : 'requests';
  for (const [name, id] of Object.entries(VIEWS)) $(id).hidden = name !== view;
  for (const link of document.querySelectorAll('#nav a')) {
    const current =
      link.getAttribute('data-view') === (view === 'orders' || view === 'order' ? 'orders' : 'requests');
    if (current) link.setAttribute('aria-current', 'page');
    else link.removeAttribute('aria-current');
  }

  routeRequestDetail();
  if (quote) showQuotePage(decodeURIComponent(quote[1] ?? ''));
  else hideQuotePage();
  if (order) showOrderPage(decodeURIComponent(order[1] ?? ''));
  else hideOrderPage();
  if (view === 'orders') showOrdersList();
  else hideOrdersList();
  if (view !== 'requests') {
    window.scrollTo(0, 0);
    $('main').focus({ preventScroll: true });
  }
}

/** Follows the location hash from now on. */
export function bindRouter() {
  window.addEventListener('hashchange', route);
}
