/*
 * A node `--import` module for `npm run bench`'s `rest-list-async-context` (bench/scenarios/tracing.ts): an
 * AsyncLocalStorage store entered for every incoming request, as a tracer's context manager keeps the active
 * context, with no tracing at all — what carrying a context through a request's awaits costs by itself on this
 * Node version (on Node 20, AsyncLocalStorage follows promises through async hooks).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { subscribe } from 'node:diagnostics_channel';

const storage = new AsyncLocalStorage();
let requests = 0;
subscribe('http.server.request.start', () => {
  requests += 1;
  storage.enterWith({ request: requests });
});
