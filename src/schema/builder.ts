import SchemaBuilder from '@pothos/core';
import RelayPlugin from '@pothos/plugin-relay';
import { GraphQLError, Kind } from 'graphql';
import type { Context } from '../context.js';
import { type IdKind, idKind } from '../ids.js';
import { isoString } from '../timestamps.js';

/** GraphQL object types that are Relay nodes, by the id kind whose prefix names them. */
const nodeTypeByIdKind: Partial<Record<IdKind, string>> = {
  availabilityRequest: 'AvailabilityRequest',
  customer: 'Customer',
  project: 'Project',
  quote: 'Quote',
  order: 'Order',
  orderLine: 'OrderLine',
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

/**
 * A `DateTime` input: an ISO 8601 timestamp with a UTC offset (RFC 3339).
 * @throws {GraphQLError} `BAD_USER_INPUT` for anything else, which GraphQL reports as the input's error.
 */
function parseDateTime(value: unknown): Date {
  const text = typeof value === 'string' ? value : '';
  const date = new Date(text);
  if (!isoDateTime.test(text) || Number.isNaN(date.getTime())) {
    throw new GraphQLError(
      'DateTime must be an ISO 8601 timestamp with an offset, e.g. 2026-11-22T10:04:50Z.',
      {
        extensions: { code: 'BAD_USER_INPUT' },
      },
    );
  }
  return date;
}

/** RFC 3339 `date-time` (seconds optional fractions, `Z` or `±hh:mm`). */
const isoDateTime = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i;

builder.scalarType('DateTime', {
  description: 'An ISO 8601 timestamp in UTC, e.g. `2026-11-22T10:04:50.123Z`.',
  serialize: isoString,
  parseValue: parseDateTime,
  parseLiteral: (node) => parseDateTime(node.kind === Kind.STRING ? node.value : undefined),
});

builder.queryType({ description: 'Reads of the caller’s instance.' });
builder.mutationType({ description: 'Changes within the caller’s instance.' });
builder.subscriptionType({ description: 'Live changes within the caller’s instance.' });
