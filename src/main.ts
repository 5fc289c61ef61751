import { runService } from './server/run.js';

/** Entry point of `npm start`: the whole service (see `runService`). */
await runService('api');
