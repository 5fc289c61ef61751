import { TypeID } from 'typeid-js';
import { v7 } from 'uuid';

/**
 * A TypeID with `prefix` (`avr_01h455vb4pex5vsknk084sn02q`) whose UUIDv7 carries `atMs` (milliseconds
 * since the epoch; default now) as its timestamp, so seeded ids sort by the creation time they claim —
 * as the service's own ids (`src/ids.ts`, typeid-js) do for the time they are made.
 */
export function typeIdAt(prefix: string, atMs = Date.now()): string {
  return TypeID.fromUUID(prefix, v7({ msecs: atMs })).toString();
}
