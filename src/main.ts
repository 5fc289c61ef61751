import './runtime-check.js';
import { startTracing } from './telemetry/register.js';

// Tracing (when configured) starts before the service's modules load, so its instrumentations see them.
await startTracing(process.env);
const { runService } = await import('./server/run.js');

/** Entry point of `npm start`: the whole service (see `runService`). */
await runService('api');
