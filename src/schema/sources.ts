import type { SourceRow } from '../db/rows.js';
import { shownSonataSettings } from '../gathering/sources/mef-sonata/index.js';
import {
  enableSource,
  registerSonataSource,
  registerSource,
  sources,
  updateSonataSource,
} from '../resolvers/sources.js';
import { builder } from './builder.js';
import { Bandwidth, BandwidthInput } from './common.js';
import { withoutNulls } from './inputs.js';

type ShownSonataSettings = NonNullable<ReturnType<typeof shownSonataSettings>>;

const SonataInteraction = builder.enumType('SonataInteraction', {
  description:
    'How a mef-sonata source waits for the seller: INSTANT (synchronous answers), DEFERRED (polls the POQ ' +
    'and Quote until done), NOTIFICATIONS (registers a hub listener and waits for its events; polls when ' +
    'the gateway has no PUBLIC_BASE_URL).',
  values: {
    INSTANT: { value: 'instant' },
    DEFERRED: { value: 'deferred' },
    NOTIFICATIONS: { value: 'notifications' },
  } as const,
});

const SonataOAuth2 = builder.objectRef<ShownSonataSettings['oauth2']>('SonataOAuth2').implement({
  description:
    'The OAuth 2.0 client-credentials grant of a Sonata seller; the client secret is never returned.',
  fields: (t) => ({
    tokenUrl: t.exposeString('tokenUrl'),
    clientId: t.exposeString('clientId'),
    scope: t.exposeString('scope', { nullable: true }),
    hasClientSecret: t.exposeBoolean('hasClientSecret'),
  }),
});

const SonataContact = builder.objectRef<ShownSonataSettings['buyerContact']>('SonataContact').implement({
  description: 'The Buyer Contact Information every POQ and Quote carries (MEF 79 Sn 8.11).',
  fields: (t) => ({
    name: t.exposeString('name'),
    emailAddress: t.exposeString('emailAddress'),
    number: t.exposeString('number'),
    organization: t.exposeString('organization', { nullable: true }),
  }),
});

const SonataProductOffering = builder
  .objectRef<ShownSonataSettings['productOfferings'][number]>('SonataProductOffering')
  .implement({
    description:
      'One product offering of the seller (MEF 139 Basic Internet Access), as agreed at onboarding: the ' +
      'access technology and connection type it is, the bandwidths (kbps) and terms (months) it comes in.',
    fields: (t) => ({
      productOfferingId: t.exposeString('productOfferingId'),
      technologyType: t.exposeString('technologyType'),
      connectionType: t.exposeString('connectionType'),
      bandwidths: t.field({ type: [Bandwidth], resolve: (o) => o.bandwidths }),
      contractTerms: t.exposeIntList('contractTerms'),
    }),
  });

const SonataPoll = builder.objectRef<ShownSonataSettings['poll']>('SonataPoll').implement({
  description:
    'How a deferred POQ or Quote is polled: first after initialDelayMs (or when the seller expects to be ' +
    'done), doubling up to maxDelayMs.',
  fields: (t) => ({
    initialDelayMs: t.exposeInt('initialDelayMs'),
    maxDelayMs: t.exposeInt('maxDelayMs'),
  }),
});

const SonataOrderPoll = builder.objectRef<ShownSonataSettings['orderPoll']>('SonataOrderPoll').implement({
  description:
    'When a placed order is read (without notifications): again after as long as it has been quiet, ' +
    'between initialDelayMs and maxDelayMs, or at an item’s expected completion date when that is sooner.',
  fields: (t) => ({
    initialDelayMs: t.exposeInt('initialDelayMs'),
    maxDelayMs: t.exposeInt('maxDelayMs'),
  }),
});

const SonataSettings = builder.objectRef<ShownSonataSettings>('SonataSettings').implement({
  description: 'The settings of a mef-sonata source (docs/mef-sonata.md), without its client secret.',
  fields: (t) => ({
    baseUrl: t.exposeString('baseUrl'),
    buyerId: t.exposeString('buyerId', { nullable: true }),
    sellerId: t.exposeString('sellerId', { nullable: true }),
    oauth2: t.field({ type: SonataOAuth2, resolve: (s) => s.oauth2 }),
    buyerContact: t.field({ type: SonataContact, resolve: (s) => s.buyerContact }),
    productOfferings: t.field({ type: [SonataProductOffering], resolve: (s) => s.productOfferings }),
    interaction: t.field({ type: SonataInteraction, resolve: (s) => s.interaction }),
    poll: t.field({ type: SonataPoll, resolve: (s) => s.poll }),
    orderPoll: t.field({ type: SonataOrderPoll, resolve: (s) => s.orderPoll }),
    billingAccountId: t.exposeString('billingAccountId', {
      nullable: true,
      description:
        'The billing account orders name (MEF 123 billingAccount.id); null: the buyerId, else the ' +
        'instance’s code.',
    }),
  }),
});

const Source = builder.objectRef<SourceRow>('Source').implement({
  description:
    'A source of offers for one network: a supplier API (`http`), a MEF LSO Sonata seller (`mef-sonata`) ' +
    'or an imported catalogue (`catalog`).',
  fields: (t) => ({
    id: t.exposeID('id'),
    key: t.exposeString('key'),
    name: t.exposeString('name'),
    network: t.exposeString('network'),
    type: t.exposeString('type', { description: 'catalog, http or mef-sonata.' }),
    countryCodes: t.exposeStringList('countryCodes'),
    enabled: t.exposeBoolean('enabled'),
    endpointUrl: t.exposeString('endpointUrl', {
      nullable: true,
      description: 'http: the availability endpoint; mef-sonata: the seller’s base URL.',
    }),
    hasCredentials: t.boolean({
      description: 'Whether credentials (mef-sonata: the client secret) are stored; they are never returned.',
      resolve: (s) => s.credentials !== null,
    }),
    timeoutMs: t.exposeInt('timeoutMs', { description: 'Time allowed for one call, ms.' }),
    concurrency: t.exposeInt('concurrency', { description: 'Calls in flight at once.' }),
    sonata: t.field({
      type: SonataSettings,
      nullable: true,
      description: 'A mef-sonata source’s settings; null for other types.',
      resolve: (s) => shownSonataSettings(s),
    }),
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

const SonataOAuth2Input = builder.inputType('SonataOAuth2Input', {
  description: 'The OAuth 2.0 client-credentials grant (RFC 6749 §4.4) of the seller’s API gateway.',
  fields: (t) => ({
    tokenUrl: t.string({ required: true, description: 'https (plain http only to a loopback host).' }),
    clientId: t.string({ required: true }),
    clientSecret: t.string({
      description:
        'Required to register; left out of updateSonataSource, the stored one is kept. Never returned.',
    }),
    scope: t.string(),
  }),
});

const SonataContactInput = builder.inputType('SonataContactInput', {
  description: 'The Buyer Contact Information every POQ and Quote carries.',
  fields: (t) => ({
    name: t.string({ required: true }),
    emailAddress: t.string({ required: true }),
    number: t.string({ required: true }),
    organization: t.string(),
  }),
});

const SonataProductOfferingInput = builder.inputType('SonataProductOfferingInput', {
  description: 'One product offering to qualify: its id at the seller and what it is.',
  fields: (t) => ({
    productOfferingId: t.string({ required: true }),
    technologyType: t.string({ required: true, description: 'e.g. FIBER, FTTH, VDSL.' }),
    connectionType: t.string({ required: true, description: 'e.g. DIA, SHARED.' }),
    bandwidths: t.field({ type: [BandwidthInput], required: true }),
    contractTerms: t.intList({ required: true, description: 'Months.' }),
  }),
});

const SonataPollInput = builder.inputType('SonataPollInput', {
  description: 'How a deferred answer is polled, ms (defaults 250 and 5000).',
  fields: (t) => ({
    initialDelayMs: t.int(),
    maxDelayMs: t.int(),
  }),
});

const SonataOrderPollInput = builder.inputType('SonataOrderPollInput', {
  description: 'When a placed order is read, ms (defaults 1000 and 300000).',
  fields: (t) => ({
    initialDelayMs: t.int(),
    maxDelayMs: t.int(),
  }),
});

const SonataSettingsInput = builder.inputType('SonataSettingsInput', {
  description: 'The settings of a mef-sonata source (docs/mef-sonata.md).',
  fields: (t) => ({
    baseUrl: t.string({
      required: true,
      description:
        'The seller’s base URL, before /mefApi/sonata/…; https (plain http only to a loopback host).',
    }),
    buyerId: t.string({ description: 'Sent only when set (the seller serves several buyers).' }),
    sellerId: t.string({ description: 'Sent only when set (the requester represents several sellers).' }),
    oauth2: t.field({ type: SonataOAuth2Input, required: true }),
    buyerContact: t.field({ type: SonataContactInput, required: true }),
    productOfferings: t.field({ type: [SonataProductOfferingInput], required: true }),
    interaction: t.field({ type: SonataInteraction, required: true }),
    poll: t.field({ type: SonataPollInput }),
    orderPoll: t.field({ type: SonataOrderPollInput }),
    billingAccountId: t.string({
      description:
        'The buyer’s billing account at the seller, sent with every order item (MEF 123 R33); left out, ' +
        'orders name the buyerId, else the instance’s code.',
    }),
  }),
});

const RegisterSonataSourceInput = builder.inputType('RegisterSonataSourceInput', {
  fields: (t) => ({
    key: t.string({ required: true }),
    name: t.string({ required: true }),
    network: t.string({ required: true }),
    countryCodes: t.stringList({ required: true }),
    timeoutMs: t.int({ description: 'Time allowed for one whole query (POQ, Quote, waiting), ms.' }),
    concurrency: t.int(),
    enabled: t.boolean(),
    sonata: t.field({ type: SonataSettingsInput, required: true }),
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

builder.mutationField('registerSonataSource', (t) =>
  t.field({
    type: SourcePayload,
    description:
      'Registers a MEF LSO Sonata seller as a mef-sonata source (instance admins only); its client secret is ' +
      'stored and never returned.',
    args: { input: t.arg({ type: RegisterSonataSourceInput, required: true }) },
    resolve: async (_root, args, ctx) => ({
      source: await registerSonataSource(ctx, withoutNulls(args.input) as object),
    }),
  }),
);

builder.mutationField('updateSonataSource', (t) =>
  t.field({
    type: SourcePayload,
    description:
      'Replaces the settings of a mef-sonata source (instance admins only). Its hub listeners at the seller ' +
      'are deleted; in the NOTIFICATIONS mode its next query registers them again.',
    args: {
      id: t.arg.id({ required: true }),
      sonata: t.arg({ type: SonataSettingsInput, required: true }),
    },
    resolve: async (_root, args, ctx) => ({
      source: await updateSonataSource(ctx, String(args.id), withoutNulls(args.sonata)),
    }),
  }),
);

builder.mutationField('setSourceEnabled', (t) =>
  t.field({
    type: SourcePayload,
    description:
      'Enables or disables a source (instance admins only); disabling a mef-sonata source deletes its hub ' +
      'listeners at the seller.',
    args: { id: t.arg.id({ required: true }), enabled: t.arg.boolean({ required: true }) },
    resolve: async (_root, args, ctx) => ({ source: await enableSource(ctx, String(args.id), args.enabled) }),
  }),
);
