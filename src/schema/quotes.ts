import type { InstanceProductRow, QuoteLineRow, QuoteRecord } from '../db/rows.js';
import { quoteLineKinds } from '../db/rows.js';
import { toMajorUnits } from '../money.js';
import { findCustomerForViewer } from '../resolvers/customers.js';
import {
  changeInstanceProduct,
  createInstanceProduct,
  instanceProducts,
} from '../resolvers/instance-products.js';
import { productSourceOf } from '../resolvers/product-sources.js';
import {
  addQuoteProducts,
  createQuote,
  findQuoteForViewer,
  quoteConnection,
  quoteTotals,
} from '../resolvers/quotes.js';
import { builder } from './builder.js';
import { Bandwidth, ProductSource } from './common.js';
import { Customer } from './customers.js';
import { withoutNulls } from './inputs.js';

const QuoteLineKind = builder.enumType('QuoteLineKind', {
  description: 'Where a quote line’s product comes from.',
  values: Object.fromEntries(quoteLineKinds.map((kind) => [kind.toUpperCase(), { value: kind }])) as Record<
    Uppercase<(typeof quoteLineKinds)[number]>,
    { value: (typeof quoteLineKinds)[number] }
  >,
});

const InstanceProductFulfilment = builder.enumType('InstanceProductFulfilment', {
  description:
    'How an instance product’s order lines are fulfilled: MANUAL (an admin marks them completed or failed) or NONE (nothing to deliver, e.g. a fee: COMPLETED when the order is placed).',
  values: { MANUAL: { value: 'manual' }, NONE: { value: 'none' } } as const,
});

const InstanceProduct = builder.objectRef<InstanceProductRow>('InstanceProduct').implement({
  description: 'An item of the instance’s own catalogue; mandatory ones are added to every quote.',
  fields: (t) => ({
    id: t.exposeID('id'),
    name: t.exposeString('name'),
    description: t.exposeString('description'),
    mandatory: t.exposeBoolean('mandatory'),
    fulfilment: t.field({
      type: InstanceProductFulfilment,
      description: 'How its order lines are fulfilled.',
      resolve: (p) => p.fulfilment,
    }),
    mrc: t.float({
      description: 'Monthly charge, major unit.',
      resolve: (p) => toMajorUnits(p.mrcMinor, p.currency),
    }),
    nrc: t.float({
      description: 'One-off charge, major unit.',
      resolve: (p) => toMajorUnits(p.nrcMinor, p.currency),
    }),
    currency: t.exposeString('currency'),
  }),
});

const QuoteLine = builder.objectRef<QuoteLineRow>('QuoteLine').implement({
  description: 'A product on a quote, with the name and prices it had when added.',
  fields: (t) => ({
    id: t.exposeID('id'),
    kind: t.field({ type: QuoteLineKind, resolve: (l) => l.kind }),
    productId: t.exposeID('productId'),
    name: t.exposeString('name'),
    source: t.field({
      type: ProductSource,
      nullable: true,
      description:
        'The source that offered it, as named when the line was added; null for the instance’s own products.',
      resolve: productSourceOf,
    }),
    network: t.exposeString('network', { nullable: true }),
    technologyType: t.exposeString('technologyType', { nullable: true }),
    connectionType: t.exposeString('connectionType', { nullable: true }),
    bandwidth: t.field({
      type: Bandwidth,
      nullable: true,
      resolve: (l) =>
        l.downloadKbps === null || l.uploadKbps === null
          ? null
          : { download: l.downloadKbps, upload: l.uploadKbps },
    }),
    contractTerm: t.exposeInt('contractTermMonths', { nullable: true, description: 'Months.' }),
    mrc: t.float({ resolve: (l) => toMajorUnits(l.mrcMinor, l.currency) }),
    nrc: t.float({ resolve: (l) => toMajorUnits(l.nrcMinor, l.currency) }),
    currency: t.exposeString('currency'),
  }),
});

/** The Quote node type. */
export const Quote = builder.objectRef<QuoteRecord>('Quote');

builder.node(Quote, {
  description: 'A quote for a customer; totals are sums over its lines.',
  id: { resolve: (r) => r.quote.id },
  isTypeOf: (value) => typeof value === 'object' && value !== null && 'quote' in value && 'lines' in value,
  loadOne: (id, ctx) => findQuoteForViewer(ctx, String(id)),
  fields: (t) => ({
    name: t.string({ resolve: (r) => r.quote.name }),
    quoteNumber: t.string({
      description: 'Year, sequence, instance code: 2026-0003-ACM.',
      resolve: (r) => r.quote.quoteNumber,
    }),
    referenceNumber: t.string({ nullable: true, resolve: (r) => r.quote.referenceNumber }),
    currency: t.string({ resolve: (r) => r.quote.currency }),
    validityDays: t.int({ resolve: (r) => r.quote.validityDays }),
    expirationDate: t.string({ description: 'YYYY-MM-DD (UTC).', resolve: (r) => r.quote.expirationDate }),
    customer: t.field({
      type: Customer,
      nullable: true,
      resolve: (r, _args, ctx) => findCustomerForViewer(ctx, r.customer.id),
    }),
    products: t.field({ type: [QuoteLine], resolve: (r) => r.lines }),
    totalProducts: t.int({ resolve: (r) => quoteTotals(r).totalProducts }),
    totalMrc: t.float({ resolve: (r) => toMajorUnits(quoteTotals(r).totalMrcMinor, r.quote.currency) }),
    totalNrc: t.float({ resolve: (r) => toMajorUnits(quoteTotals(r).totalNrcMinor, r.quote.currency) }),
    createdAt: t.field({ type: 'DateTime', resolve: (r) => r.quote.createdAt }),
  }),
});

const CreateQuoteInput = builder.inputType('CreateQuoteInput', {
  fields: (t) => ({
    name: t.string({ required: true }),
    customerId: t.id({ required: true }),
    referenceNumber: t.string(),
    availabilityRequestProductIds: t.idList(),
    instanceProductIds: t.idList(),
    mandatoryProductIds: t.idList(),
  }),
});

const AddQuoteProductsInput = builder.inputType('AddQuoteProductsInput', {
  fields: (t) => ({
    quoteId: t.id({ required: true }),
    availabilityRequestProductIds: t.idList(),
    instanceProductIds: t.idList(),
    mandatoryProductIds: t.idList(),
  }),
});

const QuotePayload = (name: string) =>
  builder
    .objectRef<{ quote: QuoteRecord }>(name)
    .implement({ fields: (f) => ({ quote: f.field({ type: Quote, resolve: (p) => p.quote }) }) });

builder.queryField('quote', (t) =>
  t.field({
    type: Quote,
    nullable: true,
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx) => findQuoteForViewer(ctx, String(args.id)),
  }),
);

builder.queryField('quotes', (t) =>
  t.connection(
    {
      type: Quote,
      description: 'The instance’s quotes, newest first. Forward paging only.',
      resolve: (_root, args, ctx) => quoteConnection(ctx, args),
    },
    { fields: (c) => ({ totalCount: c.int({ resolve: (connection) => connection.totalCount }) }) },
  ),
);

builder.queryField('instanceProducts', (t) =>
  t.field({
    type: [InstanceProduct],
    description: 'The instance’s own products (REST: GET /instance-products).',
    resolve: (_root, _args, ctx) => instanceProducts(ctx, false),
  }),
);

builder.queryField('mandatoryProducts', (t) =>
  t.field({
    type: [InstanceProduct],
    description: 'Products required on every quote (REST: GET /mandatory-products).',
    resolve: (_root, _args, ctx) => instanceProducts(ctx, true),
  }),
);

builder.mutationField('createQuote', (t) =>
  t.field({
    type: QuotePayload('CreateQuotePayload'),
    description: 'Creates a quote (REST: POST /quotes).',
    args: { input: t.arg({ type: CreateQuoteInput, required: true }) },
    resolve: async (_root, args, ctx) => ({ quote: await createQuote(ctx, withoutNulls(args.input)) }),
  }),
);

builder.mutationField('addQuoteProducts', (t) =>
  t.field({
    type: QuotePayload('AddQuoteProductsPayload'),
    description:
      'Adds products to a quote; ones already on it are skipped (REST: POST /quotes/{id}/products). A quote ' +
      'with an order that is neither FAILED nor CANCELLED is frozen: CONFLICT, nothing added.',
    args: { input: t.arg({ type: AddQuoteProductsInput, required: true }) },
    resolve: async (_root, args, ctx) => {
      const { quoteId, ...ids } = withoutNulls(args.input) as { quoteId: string };
      return { quote: await addQuoteProducts(ctx, String(quoteId), ids) };
    },
  }),
);

const InstanceProductInput = builder.inputType('InstanceProductInput', {
  fields: (t) => ({
    name: t.string({ required: true }),
    description: t.string(),
    mandatory: t.boolean({ description: 'Required on every quote.' }),
    fulfilment: t.field({
      type: InstanceProductFulfilment,
      description: 'How its order lines are fulfilled; MANUAL when left out.',
    }),
    mrc: t.float({ required: true, description: 'Major unit, e.g. 19.50.' }),
    nrc: t.float({ required: true }),
    currency: t.string({ required: true, description: 'ISO 4217.' }),
  }),
});

const InstanceProductChanges = builder.inputType('InstanceProductChanges', {
  fields: (t) => ({
    name: t.string(),
    description: t.string(),
    mrc: t.float(),
    nrc: t.float(),
    fulfilment: t.field({
      type: InstanceProductFulfilment,
      description: 'How its order lines are fulfilled from now on; orders placed keep theirs.',
    }),
  }),
});

const InstanceProductPayload = builder
  .objectRef<{ product: InstanceProductRow }>('InstanceProductPayload')
  .implement({ fields: (f) => ({ product: f.field({ type: InstanceProduct, resolve: (p) => p.product }) }) });

builder.mutationField('createInstanceProduct', (t) =>
  t.field({
    type: InstanceProductPayload,
    description: 'Adds a product to the instance catalogue (instance admins only).',
    args: { input: t.arg({ type: InstanceProductInput, required: true }) },
    resolve: async (_root, args, ctx) => ({
      product: await createInstanceProduct(ctx, withoutNulls(args.input)),
    }),
  }),
);

builder.mutationField('updateInstanceProduct', (t) =>
  t.field({
    type: InstanceProductPayload,
    description:
      'Changes a catalogue product; quotes keep the prices they were made with (instance admins only).',
    args: {
      id: t.arg.id({ required: true }),
      input: t.arg({ type: InstanceProductChanges, required: true }),
    },
    resolve: async (_root, args, ctx) => ({
      product: await changeInstanceProduct(ctx, String(args.id), withoutNulls(args.input)),
    }),
  }),
);
