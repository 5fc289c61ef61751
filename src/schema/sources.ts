import type { SourceRow } from '../db/rows.js';
import { enableSource, registerSource, sources } from '../resolvers/sources.js';
import { builder } from './builder.js';
import { withoutNulls } from './inputs.js';

const Source = builder.objectRef<SourceRow>('Source').implement({
  description:
    'A source of offers for one network: a supplier API (`http`) or an imported catalogue (`catalog`).',
  fields: (t) => ({
    id: t.exposeID('id'),
    key: t.exposeString('key'),
    name: t.exposeString('name'),
    network: t.exposeString('network'),
    type: t.exposeString('type', { description: 'catalog or http.' }),
    countryCodes: t.exposeStringList('countryCodes'),
    enabled: t.exposeBoolean('enabled'),
    endpointUrl: t.exposeString('endpointUrl', { nullable: true }),
    hasCredentials: t.boolean({
      description: 'Whether credentials are stored; they are never returned.',
      resolve: (s) => s.credentials !== null,
    }),
    timeoutMs: t.exposeInt('timeoutMs', { description: 'Time allowed for one call, ms.' }),
    concurrency: t.exposeInt('concurrency', { description: 'Calls in flight at once.' }),
  }),
});

const RegisterSourceInput = builder.inputType('RegisterSourceInput', {
  fields: (t) => ({
    key: t.string({ required: true }),
    name: t.string({ required: true }),
    network: t.string({ required: true }),
    countryCodes: t.stringList({ required: true }),
    endpointUrl: t.string({ required: true }),
    credentials: t.string({ description: 'Sent as a bearer token; stored, never returned.' }),
    timeoutMs: t.int(),
    concurrency: t.int(),
    enabled: t.boolean(),
  }),
});

const SourcePayload = builder
  .objectRef<{ source: SourceRow }>('SourcePayload')
  .implement({ fields: (f) => ({ source: f.field({ type: Source, resolve: (p) => p.source }) }) });

builder.queryField('sources', (t) =>
  t.field({
    type: [Source],
    description: 'The instance’s sources (instance admins only).',
    resolve: (_root, _args, ctx) => sources(ctx),
  }),
);

builder.mutationField('registerSource', (t) =>
  t.field({
    type: SourcePayload,
    description: 'Registers a supplier API as a source (instance admins only).',
    args: { input: t.arg({ type: RegisterSourceInput, required: true }) },
    resolve: async (_root, args, ctx) => ({ source: await registerSource(ctx, withoutNulls(args.input)) }),
  }),
);

builder.mutationField('setSourceEnabled', (t) =>
  t.field({
    type: SourcePayload,
    description: 'Enables or disables a source (instance admins only).',
    args: { id: t.arg.id({ required: true }), enabled: t.arg.boolean({ required: true }) },
    resolve: async (_root, args, ctx) => ({ source: await enableSource(ctx, String(args.id), args.enabled) }),
  }),
);
