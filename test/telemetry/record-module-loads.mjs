// Preloaded by test/telemetry/untraced-loads.test.ts (`node --import`): appends the URL of every module the
// process loads, ES or CommonJS, to the file named by RECORD_MODULE_LOADS, one per line (Node's
// in-thread module hooks, `module.registerHooks`, Node ≥ 22.15).
import { appendFileSync } from 'node:fs';
import { registerHooks } from 'node:module';

const file = process.env.RECORD_MODULE_LOADS;
if (file)
  registerHooks({
    load(url, context, nextLoad) {
      appendFileSync(file, `${url}\n`);
      return nextLoad(url, context);
    },
  });
