/**
 * Customers, their projects, and price plans (the markups that turn purchase prices into sale prices).
 * Every row belongs to one instance; an id of another instance reads as not found.
 */

/** A customer of a reseller (contract, "Customer"). */
export interface CustomerRow {
  id: string;
  instanceId: string;
  /** Per-instance sequence number behind `auto_number`: 1, 2, 3… in creation order, without gaps. */
  autoSequence: number;
  name: string;
  /** The name case-folded, for case-insensitive substring search and the list order. */
  nameFolded: string;
  externalId: string | null;
  legalName: string | null;
  businessRegistrationNumber: string | null;
  /** http(s) URL. */
  website: string | null;
  interconnected: boolean;
  /** ISO 4217; quotes use the instance's default currency when null. */
  preferredCurrency: string | null;
  /** Availability requests that may be created for the customer per calendar month (UTC); null = no limit. */
  monthlyAvailabilityRequestLimit: number | null;
  internalNotes: string | null;
  agentId: string | null;
  networkNameOverride: string | null;
  customerRegion: string | null;
  pricePlanId: string;
  accountManagerUserId: string;
  createdAt: Date;
  updatedAt: Date;
}

/** Invoicing details of a customer (contract, "Financial details"); one row per customer at most. */
export interface FinancialDetailsRow {
  customerId: string;
  name: string | null;
  email: string | null;
  street: string | null;
  houseNumber: string | null;
  houseNumberAddition: string | null;
  postalCode: string | null;
  city: string | null;
  region: string | null;
  /** ISO 3166 alpha-2. */
  countryCode: string | null;
  vatNumber: string | null;
  /** IBAN. */
  bankAccountNumber: string | null;
  applyVat: boolean;
  /** Days an invoice may stay unpaid. */
  paymentTermDays: number | null;
}

/** A project of a customer; a request's project selects the customer's pricing. */
export interface ProjectRow {
  id: string;
  instanceId: string;
  customerId: string;
  name: string;
  createdAt: Date;
  updatedAt: Date;
}

/** A project with its customer's name, as project documents show it. */
export interface ProjectRecord {
  project: ProjectRow;
  customerName: string;
}

/** A customer with what its list record nests: price plan, account manager and financial details. */
export interface CustomerRecord {
  customer: CustomerRow;
  pricePlan: { id: string; name: string };
  accountManager: { id: string; firstName: string; lastName: string };
  financialDetails: FinancialDetailsRow | null;
}

/** A customer to create (already validated); id, sequence number and times are the store's. */
export interface NewCustomer
  extends Omit<CustomerRow, 'id' | 'instanceId' | 'autoSequence' | 'createdAt' | 'updatedAt'> {
  financialDetails: Omit<FinancialDetailsRow, 'customerId'> | null;
}

/** A customer's position in the list order (folded name, then id, both bytewise): a cursor. */
export interface CustomerPosition {
  nameFolded: string;
  id: string;
}

/** Which customers a list reads: those whose folded name contains `nameFolded` (all when null or empty). */
export interface CustomerFilter {
  nameFolded: string | null;
}

/** A page of the customers list by offset. */
export interface CustomerPageQuery extends CustomerFilter {
  offset: number;
  limit: number;
}

/** A slice of the customers list after a position (from the start when null). */
export interface CustomerSliceQuery extends CustomerFilter {
  after: CustomerPosition | null;
  limit: number;
}

/** A project to create. */
export interface NewProject {
  instanceId: string;
  customerId: string;
  name: string;
  now: Date;
}

/** A page of the projects list by offset, optionally of one customer. */
export interface ProjectPageQuery {
  customerId: string | null;
  offset: number;
  limit: number;
}

/** A page of the projects list, with the number of projects the whole (filtered) list holds. */
export interface ProjectsPage {
  rows: ProjectRecord[];
  total: number;
}

/** A markup pair in basis points of the purchase price (2500 = +25 %, −10 000 = −100 %). */
export interface Markup {
  mrcMarkupBp: number;
  nrcMarkupBp: number;
}

/** A rule overriding a plan's markups for offers matching every criterion it sets (null = any). */
export interface PricingRule extends Markup {
  network: string | null;
  technologyType: string | null;
  connectionType: string | null;
}

/** A price plan's default markups and its override rules, as the pricing engine applies them. */
export interface PricingPlan extends Markup {
  /** In creation order; the most specific matching rule wins (`src/gathering/pricing.ts`). */
  rules: readonly PricingRule[];
}

/** A price plan: its default markups (basis points); exactly one plan per instance is its default. */
export interface PricePlanRow extends Markup {
  id: string;
  instanceId: string;
  /** Unique within the instance. */
  name: string;
  isDefault: boolean;
  createdAt: Date;
  updatedAt: Date;
}

/** A plan with its rules, in creation order. */
export interface PricePlanWithRules extends PricePlanRow {
  rules: PricingRule[];
}

/** A plan to create: markups in basis points; `isDefault` makes it the instance's default. */
export interface NewPricePlan extends Markup {
  name: string;
  isDefault: boolean;
  rules: PricingRule[];
}

/** Input of `setCustomerPricePlan`. */
export interface CustomerPricePlanAssignment {
  instanceId: string;
  customerId: string;
  /** A plan of the same instance (the caller checked). */
  pricePlanId: string;
  now: Date;
}

/** Customer, project and price-plan operations. */
export interface CustomerOperations {
  /**
   * Creates a customer and its financial details in one transaction. Its sequence number is the
   * instance's highest so far plus one, assigned under a lock on the instance's customers, so concurrent
   * creates get distinct numbers with no gaps.
   */
  insertCustomer: (instanceId: string, input: NewCustomer, now: Date) => Promise<CustomerRow>;
  /** One customer of the instance as a record, or undefined (also for another instance's id). */
  findCustomer: (instanceId: string, id: string) => Promise<CustomerRecord | undefined>;
  /** Those of the ids that are customers of the instance, as records, in no set order (batch loading). */
  findCustomers: (instanceId: string, ids: readonly string[]) => Promise<CustomerRecord[]>;
  /**
   * Number of customers of the instance whose folded name contains `nameFolded`, a case-sensitive
   * substring in which `%`, `_` and `\` are literal characters (DESIGN.md, "Customers list"). All of them
   * when null or empty, read from the instance's list total (no scan).
   */
  countCustomers: (instanceId: string, nameFolded: string | null) => Promise<number>;
  /** A page of the customers (filtered as `countCustomers`), in list order: folded name, then id, bytewise. */
  listCustomersPage: (instanceId: string, query: CustomerPageQuery) => Promise<CustomerRecord[]>;
  /**
   * Up to `limit` customers (filtered as `countCustomers`) after a position in list order, for cursor
   * connections; a position no customer holds starts at the next one.
   */
  sliceCustomers: (instanceId: string, query: CustomerSliceQuery) => Promise<CustomerRecord[]>;
  /** Creates a project (the caller checked the customer is of the instance). */
  insertProject: (input: NewProject) => Promise<ProjectRow>;
  /** One project of the instance, or undefined. */
  findProject: (instanceId: string, id: string) => Promise<ProjectRow | undefined>;
  /**
   * A page of the instance's projects (of one customer when `customerId` is set), oldest first, ties by
   * id bytewise, with their customers' names; `total` counts the whole filtered list.
   */
  listProjectsPage: (instanceId: string, query: ProjectPageQuery) => Promise<ProjectsPage>;
  /** The projects of several customers of the instance in one read (batch loading), oldest first. */
  listProjectsOfCustomers: (instanceId: string, customerIds: readonly string[]) => Promise<ProjectRow[]>;
  /**
   * Creates price plans with their rules in one transaction. A plan created as default takes the default
   * over from the previous one (of several defaults in `plans`, the last stays default), under a lock on
   * the instance's default, so an instance has exactly one default at any time, also under concurrent
   * creates.
   * @returns the created plans in input order, each with `isDefault` as requested.
   * @throws the driver's unique-constraint error for a name the instance already uses (callers check
   * first, and answer `CONFLICT`); nothing is written then.
   */
  insertPricePlans: (instanceId: string, plans: NewPricePlan[], now: Date) => Promise<PricePlanWithRules[]>;
  /** The plans of the instance with their rules, the default first, then by name bytewise. */
  listPricePlans: (instanceId: string) => Promise<PricePlanWithRules[]>;
  /** One plan of the instance, or undefined. */
  findPricePlan: (instanceId: string, id: string) => Promise<PricePlanRow | undefined>;
  /** The instance's default plan, or undefined when it has none (an instance created outside the API). */
  findDefaultPricePlan: (instanceId: string) => Promise<PricePlanRow | undefined>;
  /**
   * A plan by id (of any instance: the caller got the id from a row of the right one) with its rules, as
   * the pricing engine needs it; the whole plan row comes along. Undefined when there is no such plan.
   */
  loadPricingPlan: (pricePlanId: string) => Promise<PricingPlan | undefined>;
  /**
   * Assigns a plan to a customer of the instance (touching its `updatedAt`); false, with nothing written,
   * when the customer is not one of the instance's.
   */
  setCustomerPricePlan: (input: CustomerPricePlanAssignment) => Promise<boolean>;
}
