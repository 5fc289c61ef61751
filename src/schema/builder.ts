import SchemaBuilder from '@pothos/core';
import RelayPlugin from '@pothos/plugin-relay';
import type { Context } from '../context.js';
import { type IdKind, idKind } from '../ids.js';

/** GraphQL object types that are Relay nodes, by the id kind whose prefix names them. */
const nodeTypeByIdKind: Partial<Record<IdKind, string>> = {
  availabilityRequest: 'AvailabilityRequest',
  customer: 'Customer',
  project: 'Project',
  quote: 'Quote',
  order: 'Order',
};

/**
 * The Pothos builder. Ids are the same opaque, type-prefixed strings as in REST (DESIGN.md, "Ids"), so
 * global ids are the ids themselves and `node(id)` finds the type from the prefix.
 */
export const builder = new SchemaBuilder<{
  Context: Context;
  DefaultFieldNullability: false;
  Scalars: {
    DateTime: { Input: Date; Output: Date };
  };
}>({
  plugins: [RelayPlugin],
  defaultFieldNullability: false,
  relay: {
    clientMutationId: 'omit',
    cursorType: 'String',
    nodesQueryOptions: false,
    encodeGlobalID: (_typename, id) => String(id),
    decodeGlobalID: (globalID) => {
      const kind = idKind(globalID);
      // An id of no node type is looked up as a request id: it is not found, and node() answers null.
      return { typename: (kind && nodeTypeByIdKind[kind]) ?? 'AvailabilityRequest', id: globalID };
    },
  },
});

builder.scalarType('DateTime', {
  description: 'An ISO 8601 timestamp in UTC, e.g. `2026-11-22T10:04:50.123Z`.',
  serialize: (date) => date.toISOString(),
  parseValue: (value) => {
    const date = new Date(String(value));
    if (Number.isNaN(date.getTime())) throw new TypeError('DateTime must be an ISO 8601 timestamp');
    return date;
  },
});

builder.queryType({ description: 'Reads of the caller’s instance.' });
builder.mutationType({ description: 'Changes within the caller’s instance.' });
builder.subscriptionType({ description: 'Live changes within the caller’s instance.' });
