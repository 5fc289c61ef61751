import { vi } from 'vitest';
import type * as Ids from '../../../src/ids.js';

/*
 * `src/ids.js` with deterministic, ascending ids, so that both stores' results of one twin call compare
 * equal. A test file mocks the module with it (a `vi.mock` is hoisted per file, so each file says so):
 *
 *   vi.mock('../../../src/ids.js', () => import('./sequential-ids.js'));
 *
 * and resets {@link ids} before each twin call.
 */

const actual = await vi.importActual<typeof Ids>('../../../src/ids.js');

/** The counter behind {@link newId}: the next id drawn is number `next + 1`. */
export const ids = { next: 0 };

export const { idPrefixes, idKind } = actual;

/** An id of `kind` from {@link ids}: `<prefix>_000001`, `<prefix>_000002`, … */
export function newId(kind: Ids.IdKind): string {
  ids.next += 1;
  return `${actual.idPrefixes[kind]}_${String(ids.next).padStart(6, '0')}`;
}
