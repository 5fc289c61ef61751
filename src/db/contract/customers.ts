/*
 * PLACEHOLDER (issue 33, being rewritten by hand): Customers, their projects, and price plans.
 * Derived from the SQLite queries until this file states the contract itself.
 */

import type * as customers from '../sqlite/queries/customers.js';
import type * as price_plans from '../sqlite/queries/price-plans.js';
import type { Operation } from './operation.js';

export type {
  CustomerRecord,
  CustomerRow,
  FinancialDetailsRow,
  NewCustomer,
  ProjectRecord,
  ProjectRow,
} from '../sqlite/queries/customers.js';
export type { NewPricePlan, PricePlanRow, PricePlanWithRules } from '../sqlite/queries/price-plans.js';

/** Customers, their projects, and price plans. */
export type CustomerOperations = {
  insertCustomer: Operation<typeof customers.insertCustomer>;
  findCustomer: Operation<typeof customers.findCustomer>;
  findCustomers: Operation<typeof customers.findCustomers>;
  countCustomers: Operation<typeof customers.countCustomers>;
  listCustomersPage: Operation<typeof customers.listCustomersPage>;
  sliceCustomers: Operation<typeof customers.sliceCustomers>;
  insertProject: Operation<typeof customers.insertProject>;
  findProject: Operation<typeof customers.findProject>;
  listProjectsPage: Operation<typeof customers.listProjectsPage>;
  listProjectsOfCustomers: Operation<typeof customers.listProjectsOfCustomers>;
  insertPricePlans: Operation<typeof price_plans.insertPricePlans>;
  listPricePlans: Operation<typeof price_plans.listPricePlans>;
  findPricePlan: Operation<typeof price_plans.findPricePlan>;
  findDefaultPricePlan: Operation<typeof price_plans.findDefaultPricePlan>;
  loadPricingPlan: Operation<typeof price_plans.loadPricingPlan>;
  setCustomerPricePlan: Operation<typeof price_plans.setCustomerPricePlan>;
};
