import { fromUUIDBytes, TypeID } from 'typeid-js';
import { v7 } from 'uuid';

/**
 * Type prefixes of every object id. Ids are TypeIDs (`avr_01h455vb4pex5vsknk084sn02q`): a prefix
 * naming the type plus a UUIDv7, so they sort by creation time and `node(id)` can resolve an id
 * without decoding it (DESIGN.md, "Ids").
 */
export const idPrefixes = {
  instance: 'ins',
  user: 'usr',
  application: 'app',
  authToken: 'tok',
  source: 'src',
  catalogArea: 'are',
  catalogOffer: 'off',
  address: 'adr',
  availabilityRequest: 'avr',
  availabilityRequestProduct: 'prd',
  customer: 'cus',
  project: 'prj',
  pricePlan: 'ppl',
  instanceProduct: 'ipr',
  mandatoryProduct: 'mpr',
  quote: 'quo',
  quoteLine: 'qli',
  order: 'ord',
  orderLine: 'orl',
  supplierOrder: 'sor',
} as const;

export type IdKind = keyof typeof idPrefixes;

/**
 * A new id of the given kind: a fresh UUIDv7 (uuid's, monotonic within a millisecond) in typeid-js's
 * string form. `fromUUIDBytes` only encodes; `typeidUnboxed` also decodes its own output again to check
 * it, a third of an id's cost, and a create of 100 addresses makes 200 ids. The prefixes are the fixed,
 * valid ones of {@link idPrefixes}.
 */
export function newId(kind: IdKind): string {
  return fromUUIDBytes(idPrefixes[kind], v7(undefined, new Uint8Array(16)));
}

/** The kind an id belongs to, or null when it is not a well-formed id of a known kind. */
export function idKind(id: string): IdKind | null {
  let prefix: string;
  try {
    prefix = TypeID.fromString(id).getType();
  } catch {
    return null;
  }
  const entry = Object.entries(idPrefixes).find(([, value]) => value === prefix);
  return entry ? (entry[0] as IdKind) : null;
}
