import './runtime-check.js';
import { startTracing } from './telemetry/register.js';

// Tracing (when configured) starts before the service's modules load, so its instrumentations see them.
await startTracing(process.env);
const { runService } = await import('./server/run.js');

/**
 * Entry point of `npm run worker`: a worker-only process that claims gathering tasks from the shared
 * database, with `/healthz`, `/readyz` and `/metrics` on `PORT` (issue 17). Run it beside API-only
 * instances (`GATHERING_WORKER=off`), with `REDIS_URL` so their events and wake-ups reach it.
 */
await runService('worker');
