import { resolveArrayConnection } from '@pothos/plugin-relay';
import type { CustomerRecord, FinancialDetailsRow, ProjectRecord } from '../db/rows.js';
import { availabilityRequestConnection } from '../resolvers/availability-request-connection.js';
import {
  autoNumber,
  createCustomer,
  customerConnection,
  findCustomerForViewer,
  getCustomer,
} from '../resolvers/customers.js';
import { loadersFor } from '../resolvers/loaders.js';
import { assignPricePlan } from '../resolvers/price-plans.js';
import { createProject, findProjectForViewer } from '../resolvers/projects.js';
import { AvailabilityRequest } from './availability-requests.js';
import { builder } from './builder.js';
import { withoutNulls } from './inputs.js';
import { PricePlan } from './price-plans.js';

const User = builder.objectRef<CustomerRecord['accountManager']>('User').implement({
  description: 'A user of the instance.',
  fields: (t) => ({
    id: t.exposeID('id'),
    firstName: t.exposeString('firstName'),
    lastName: t.exposeString('lastName'),
  }),
});

const FinancialDetails = builder.objectRef<FinancialDetailsRow>('CustomerFinancialDetails').implement({
  description: 'Invoicing details of a customer.',
  fields: (t) => ({
    name: t.exposeString('name', { nullable: true }),
    email: t.exposeString('email', { nullable: true }),
    street: t.exposeString('street', { nullable: true }),
    houseNumber: t.exposeString('houseNumber', { nullable: true }),
    houseNumberAddition: t.exposeString('houseNumberAddition', { nullable: true }),
    postalCode: t.exposeString('postalCode', { nullable: true }),
    city: t.exposeString('city', { nullable: true }),
    region: t.exposeString('region', { nullable: true }),
    countryCode: t.exposeString('countryCode', { nullable: true }),
    vatNumber: t.exposeString('vatNumber', { nullable: true }),
    bankAccountNumber: t.exposeString('bankAccountNumber', {
      nullable: true,
      description: 'IBAN, electronic format.',
    }),
    applyVat: t.exposeBoolean('applyVat'),
    paymentTermDays: t.exposeInt('paymentTermDays', { nullable: true }),
  }),
});

/** The Project node type. */
export const Project = builder.objectRef<ProjectRecord>('Project');
/** The Customer node type. */
export const Customer = builder.objectRef<CustomerRecord>('Customer');

builder.node(Project, {
  description: 'A project of a customer; a request for a project is priced for its customer.',
  id: { resolve: (record) => record.project.id },
  isTypeOf: (value) => typeof value === 'object' && value !== null && 'project' in value,
  loadOne: (id, ctx) => findProjectForViewer(ctx, String(id)),
  fields: (t) => ({
    name: t.string({ resolve: (r) => r.project.name }),
    customer: t.field({
      type: Customer,
      nullable: true,
      resolve: (r, _args, ctx) => findCustomerForViewer(ctx, r.project.customerId),
    }),
    createdAt: t.field({ type: 'DateTime', resolve: (r) => r.project.createdAt }),
  }),
});

builder.node(Customer, {
  description: 'A customer of the reseller; its price plan prices the requests made for it.',
  id: { resolve: (record) => record.customer.id },
  isTypeOf: (value) =>
    typeof value === 'object' && value !== null && 'customer' in value && 'pricePlan' in value,
  loadOne: (id, ctx) => findCustomerForViewer(ctx, String(id)),
  fields: (t) => ({
    autoNumber: t.string({
      description: 'Service-assigned customer number.',
      resolve: (r) => autoNumber(r.customer.autoSequence),
    }),
    name: t.string({ resolve: (r) => r.customer.name }),
    externalId: t.string({ nullable: true, resolve: (r) => r.customer.externalId }),
    legalName: t.string({ nullable: true, resolve: (r) => r.customer.legalName }),
    businessRegistrationNumber: t.string({
      nullable: true,
      resolve: (r) => r.customer.businessRegistrationNumber,
    }),
    website: t.string({ nullable: true, resolve: (r) => r.customer.website }),
    interconnected: t.boolean({ resolve: (r) => r.customer.interconnected }),
    applyVat: t.boolean({ resolve: (r) => r.financialDetails?.applyVat ?? false }),
    preferredCurrency: t.string({ nullable: true, resolve: (r) => r.customer.preferredCurrency }),
    monthlyAvailabilityRequestLimit: t.int({
      nullable: true,
      description: 'Requests that may be created for the customer per calendar month (UTC); null = no limit.',
      resolve: (r) => r.customer.monthlyAvailabilityRequestLimit,
    }),
    internalNotes: t.string({ nullable: true, resolve: (r) => r.customer.internalNotes }),
    agentId: t.string({ nullable: true, resolve: (r) => r.customer.agentId }),
    networkNameOverride: t.string({ nullable: true, resolve: (r) => r.customer.networkNameOverride }),
    customerRegion: t.string({ nullable: true, resolve: (r) => r.customer.customerRegion }),
    financialDetails: t.field({ type: FinancialDetails, nullable: true, resolve: (r) => r.financialDetails }),
    accountManager: t.field({ type: User, resolve: (r) => r.accountManager }),
    pricePlan: t.field({
      type: PricePlan,
      resolve: async (r, _args, ctx) => {
        const plan = await loadersFor(ctx).pricePlan.load(r.customer.pricePlanId);
        if (!plan)
          throw new Error(`price plan ${r.customer.pricePlanId} of customer ${r.customer.id} is missing`);
        return plan;
      },
    }),
    projects: t.connection({
      type: Project,
      description: 'The customer’s projects, oldest first.',
      resolve: async (r, args, ctx) => {
        const projects = await loadersFor(ctx).projectsOfCustomer.load(r.customer.id);
        const records = projects.map((project) => ({ project, customerName: r.customer.name }));
        return resolveArrayConnection({ args, maxSize: 100 }, records);
      },
    }),
    availabilityRequests: t.connection(
      {
        type: AvailabilityRequest,
        description: 'Requests made for the customer, newest first.',
        resolve: (r, args, ctx) => availabilityRequestConnection(ctx, args, { customerId: r.customer.id }),
      },
      { fields: (c) => ({ totalCount: c.int({ resolve: (connection) => connection.totalCount }) }) },
    ),
    createdAt: t.field({ type: 'DateTime', resolve: (r) => r.customer.createdAt }),
  }),
});

const FinancialDetailsInput = builder.inputType('CustomerFinancialDetailsInput', {
  fields: (t) => ({
    name: t.string(),
    email: t.string(),
    street: t.string(),
    houseNumber: t.string(),
    houseNumberAddition: t.string(),
    postalCode: t.string(),
    city: t.string(),
    region: t.string(),
    countryCode: t.string({ description: 'ISO 3166-1 alpha-2.' }),
    vatNumber: t.string({ description: 'e.g. NL123456789B01.' }),
    bankAccountNumber: t.string({ description: 'IBAN.' }),
    applyVat: t.boolean(),
    paymentTermDays: t.int(),
  }),
});

const CreateCustomerInput = builder.inputType('CreateCustomerInput', {
  description: 'A new customer; only name is required (REST: POST /customers).',
  fields: (t) => ({
    name: t.string({ required: true }),
    externalId: t.string(),
    legalName: t.string(),
    businessRegistrationNumber: t.string(),
    website: t.string({ description: 'http(s) URL.' }),
    interconnected: t.boolean(),
    preferredCurrency: t.string({ description: 'ISO 4217, e.g. EUR.' }),
    monthlyAvailabilityRequestLimit: t.int(),
    internalNotes: t.string(),
    agentId: t.string(),
    networkNameOverride: t.string(),
    customerRegion: t.string(),
    financialDetails: t.field({ type: FinancialDetailsInput }),
  }),
});

const CustomerFilter = builder.inputType('CustomerFilter', {
  fields: (t) => ({
    name: t.string({ description: 'Case-insensitive part of the name; % and _ are literal.' }),
  }),
});

builder.queryField('customers', (t) =>
  t.connection(
    {
      type: Customer,
      description: 'The instance’s customers by name (REST: GET /customers). Forward paging only.',
      args: { filter: t.arg({ type: CustomerFilter }) },
      resolve: (_root, { filter, ...args }, ctx) => customerConnection(ctx, { ...args, name: filter?.name }),
    },
    { fields: (c) => ({ totalCount: c.int({ resolve: (connection) => connection.totalCount }) }) },
  ),
);

builder.queryField('customer', (t) =>
  t.field({
    type: Customer,
    nullable: true,
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx) => findCustomerForViewer(ctx, String(args.id)),
  }),
);

builder.mutationField('createCustomer', (t) =>
  t.field({
    type: builder
      .objectRef<{ customer: CustomerRecord }>('CreateCustomerPayload')
      .implement({ fields: (f) => ({ customer: f.field({ type: Customer, resolve: (p) => p.customer }) }) }),
    args: { input: t.arg({ type: CreateCustomerInput, required: true }) },
    resolve: async (_root, args, ctx) => ({ customer: await createCustomer(ctx, withoutNulls(args.input)) }),
  }),
);

const CreateProjectInput = builder.inputType('CreateProjectInput', {
  fields: (t) => ({
    customerId: t.id({ required: true }),
    name: t.string({ required: true }),
  }),
});

builder.mutationField('createProject', (t) =>
  t.field({
    type: builder
      .objectRef<{ project: ProjectRecord }>('CreateProjectPayload')
      .implement({ fields: (f) => ({ project: f.field({ type: Project, resolve: (p) => p.project }) }) }),
    description: 'Creates a project for a customer (REST: POST /projects).',
    args: { input: t.arg({ type: CreateProjectInput, required: true }) },
    resolve: async (_root, args, ctx) => ({
      project: await createProject(ctx, { customerId: String(args.input.customerId), name: args.input.name }),
    }),
  }),
);

builder.mutationField('assignPricePlan', (t) =>
  t.field({
    type: builder
      .objectRef<{ customer: CustomerRecord }>('AssignPricePlanPayload')
      .implement({ fields: (f) => ({ customer: f.field({ type: Customer, resolve: (p) => p.customer }) }) }),
    description: 'Gives a customer a price plan; requests created afterwards use it (instance admins only).',
    args: { customerId: t.arg.id({ required: true }), pricePlanId: t.arg.id({ required: true }) },
    resolve: async (_root, args, ctx) => {
      const { customerId } = await assignPricePlan(ctx, {
        customerId: String(args.customerId),
        pricePlanId: String(args.pricePlanId),
      });
      return { customer: await getCustomer(ctx, customerId) };
    },
  }),
);
