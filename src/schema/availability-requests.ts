import type { AvailabilityRequestRecord, ProductRow, ShownAddress, SourceOutcome } from '../db/rows.js';
import { availabilityRequestStatuses, gatheringTaskStatuses } from '../db/rows.js';
import { toMajorUnits } from '../money.js';
import { availabilityRequestUpdates } from '../resolvers/availability-events.js';
import { availabilityRequestConnection } from '../resolvers/availability-request-connection.js';
import {
  availabilityRequestProducts,
  availabilityRequestSourceOutcomes,
  createAvailabilityRequests,
  findAvailabilityRequestForViewer,
  productSource,
  progressPercentage,
} from '../resolvers/availability-requests.js';
import { builder } from './builder.js';
import { Bandwidth, BandwidthInput, Coordinates, CoordinatesInput, ProductSource } from './common.js';
import { withoutNulls } from './inputs.js';

const upperCase = <T extends string>(values: readonly T[]) =>
  Object.fromEntries(values.map((value) => [value.toUpperCase(), { value }])) as Record<
    Uppercase<T>,
    { value: T }
  >;

const AvailabilityRequestStatus = builder.enumType('AvailabilityRequestStatus', {
  description:
    'PENDING: no source started; IN_PROGRESS: some started; COMPLETED: every matching source finished.',
  values: upperCase(availabilityRequestStatuses),
});

const SourceOutcomeStatus = builder.enumType('SourceOutcomeStatus', {
  description: 'Where one source stands for one request.',
  values: upperCase(gatheringTaskStatuses),
});

const Address = builder.objectRef<ShownAddress>('Address').implement({
  description: 'The address of a request, normalised; string fields are "" where unknown.',
  fields: (t) => ({
    id: t.exposeID('id'),
    street: t.exposeString('street'),
    city: t.exposeString('city'),
    continentCode: t.exposeString('continentCode', { description: 'Two-letter continent code, e.g. EU.' }),
    countryCode: t.exposeString('countryCode', { description: 'ISO 3166-1 alpha-2.' }),
    postalCode: t.exposeString('postalCode', { description: 'Normalised, e.g. 1016XA.' }),
    houseNumber: t.exposeString('houseNumber'),
    houseNumberAddition: t.exposeString('houseNumberAddition', { description: '"" when there is none.' }),
    coordinatesPrecision: t.exposeString('coordinatesPrecision', {
      nullable: true,
      description:
        'How exact the coordinates are: given (coordinate input), address (the address itself, e.g. BAG), postal_code_area (the centre of its postal code area, e.g. a Dutch PC4), city (the city centre); null when unknown.',
    }),
    coordinates: t.field({
      type: Coordinates,
      nullable: true,
      description:
        'Given, or located by the service (see coordinatesPrecision); null when the place is unknown.',
      resolve: (a) =>
        a.latitude === null || a.longitude === null ? null : { latitude: a.latitude, longitude: a.longitude },
    }),
  }),
});

const AvailabilityRequestFilters = builder
  .objectRef<AvailabilityRequestRecord['request']['filters']>('AvailabilityRequestFilters')
  .implement({
    description: 'The filters a request applies; every list is empty when that filter was not given.',
    fields: (t) => ({
      bandwidths: t.expose('bandwidths', { type: [Bandwidth] }),
      networks: t.exposeStringList('networks'),
      contractTerms: t.exposeIntList('contractTerms', { description: 'Months.' }),
      connectionTypes: t.exposeStringList('connectionTypes'),
      technologyTypes: t.exposeStringList('technologyTypes'),
    }),
  });

const AvailabilityRequestProduct = builder.objectRef<ProductRow>('AvailabilityRequestProduct').implement({
  description: 'An offer gathered for a request, at the sale price.',
  fields: (t) => ({
    id: t.exposeID('id'),
    source: t.field({
      type: ProductSource,
      nullable: true,
      description: 'The source that offered it: two products of one network from two sources differ here.',
      resolve: (p, _args, ctx) => productSource(ctx, p),
    }),
    network: t.exposeString('network'),
    technologyType: t.exposeString('technologyType'),
    connectionType: t.exposeString('connectionType'),
    bandwidth: t.field({
      type: Bandwidth,
      resolve: (p) => ({ download: p.downloadKbps, upload: p.uploadKbps }),
    }),
    contractTerm: t.exposeInt('contractTermMonths', { description: 'Months.' }),
    mrc: t.float({
      description: 'Monthly recurring charge, major unit.',
      resolve: (p) => toMajorUnits(p.mrcMinor, p.currency),
    }),
    nrc: t.float({
      description: 'One-off charge, major unit.',
      resolve: (p) => toMajorUnits(p.nrcMinor, p.currency),
    }),
    currency: t.exposeString('currency', { description: 'ISO 4217.' }),
  }),
});

const AvailabilityRequestSource = builder.objectRef<SourceOutcome>('AvailabilityRequestSource').implement({
  description: 'One matching source of a request and how its gathering went.',
  fields: (t) => ({
    sourceId: t.exposeID('sourceId'),
    name: t.exposeString('sourceName'),
    network: t.exposeString('network'),
    status: t.field({ type: SourceOutcomeStatus, resolve: (o) => o.status }),
    attempts: t.exposeInt('attempts'),
    productCount: t.exposeInt('productCount'),
    errorCode: t.exposeString('errorCode', {
      nullable: true,
      description:
        'Why the source failed; on a succeeded source, what part of its answer gave no product (e.g. SONATA_PARTLY_DECLINED).',
    }),
    errorMessage: t.exposeString('errorMessage', {
      nullable: true,
      description: 'The same in words, e.g. "10 offers; declined: 7 not serviceable".',
    }),
  }),
});

/** The AvailabilityRequest node type. */
export const AvailabilityRequest = builder.node(
  builder.objectRef<AvailabilityRequestRecord>('AvailabilityRequest'),
  {
    description: 'A search for offers at one address, gathered asynchronously from every matching source.',
    id: { resolve: (record) => record.request.id },
    isTypeOf: (value) =>
      typeof value === 'object' && value !== null && 'request' in value && 'address' in value,
    loadOne: (id, ctx) => findAvailabilityRequestForViewer(ctx, String(id)),
    fields: (t) => ({
      address: t.field({ type: Address, resolve: (r) => r.address }),
      createdAt: t.field({ type: 'DateTime', resolve: (r) => r.request.createdAt }),
      updatedAt: t.field({ type: 'DateTime', resolve: (r) => r.request.updatedAt }),
      filters: t.field({ type: AvailabilityRequestFilters, resolve: (r) => r.request.filters }),
      status: t.field({ type: AvailabilityRequestStatus, resolve: (r) => r.request.status }),
      networksProgressPercentage: t.float({
        description: 'Finished ÷ matching sources × 100, two decimals.',
        resolve: (r) => progressPercentage(r.request),
      }),
      products: t.field({
        type: [AvailabilityRequestProduct],
        description: 'Offers gathered so far.',
        resolve: (r, _args, ctx) => availabilityRequestProducts(ctx, r.request.id),
      }),
      sources: t.field({
        type: [AvailabilityRequestSource],
        description: 'The matching sources and their outcomes.',
        resolve: (r, _args, ctx) => availabilityRequestSourceOutcomes(ctx, r.request.id),
      }),
    }),
  },
);

const AddressInput = builder.inputType('AddressInput', {
  description: 'Address fields (as the options endpoint describes per country) or coordinates.',
  fields: (t) => ({
    countryCode: t.string(),
    street: t.string(),
    city: t.string(),
    houseNumber: t.string(),
    houseNumberAddition: t.string(),
    postalCode: t.string(),
    coordinates: t.field({ type: CoordinatesInput }),
  }),
});

const AvailabilityRequestInput = builder.inputType('AvailabilityRequestInput', {
  description: 'One availability request: an address and optional filters.',
  fields: (t) => ({
    address: t.field({ type: AddressInput, required: true }),
    bandwidths: t.field({ type: [BandwidthInput] }),
    networks: t.stringList(),
    contractTerms: t.intList({ description: 'Months.' }),
    connectionTypes: t.stringList(),
    technologyTypes: t.stringList(),
    customerId: t.id(),
    projectId: t.id(),
  }),
});

const CreateAvailabilityRequestsPayload = builder
  .objectRef<{ records: AvailabilityRequestRecord[]; message: string }>('CreateAvailabilityRequestsPayload')
  .implement({
    fields: (t) => ({
      availabilityRequests: t.field({ type: [AvailabilityRequest], resolve: (p) => p.records }),
      message: t.exposeString('message'),
    }),
  });

builder.mutationField('createAvailabilityRequests', (t) =>
  t.field({
    type: CreateAvailabilityRequestsPayload,
    description:
      'Creates one request per element; one invalid element rejects all (REST: POST /availability-requests).',
    args: { input: t.arg({ type: [AvailabilityRequestInput], required: true }) },
    resolve: (_root, args, ctx) => createAvailabilityRequests(ctx, withoutNulls(args.input)),
  }),
);

builder.queryField('availabilityRequest', (t) =>
  t.field({
    type: AvailabilityRequest,
    nullable: true,
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx) => findAvailabilityRequestForViewer(ctx, String(args.id)),
  }),
);

builder.queryField('availabilityRequests', (t) =>
  t.connection(
    {
      type: AvailabilityRequest,
      description: 'The instance’s requests, newest first.',
      resolve: (_root, args, ctx) => availabilityRequestConnection(ctx, args),
    },
    {
      fields: (c) => ({
        totalCount: c.int({
          description: 'Requests in the whole list, not just this page.',
          resolve: (connection) => connection.totalCount,
        }),
      }),
    },
  ),
);

builder.subscriptionField('availabilityRequestUpdated', (t) =>
  t.field({
    type: AvailabilityRequest,
    description:
      'Every create, progress change and status change of the instance’s requests, or only of `ids` — whose ' +
      'current states come first. Over graphql-ws (auth in connection_init `{authToken}`) or SSE.',
    args: { ids: t.arg.idList() },
    subscribe: (_root, args, ctx) =>
      availabilityRequestUpdates(ctx, { ids: args.ids?.map((id) => String(id)) ?? null }),
    resolve: (record) => record,
  }),
);
