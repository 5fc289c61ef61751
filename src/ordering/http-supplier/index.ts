/*
 * Ordering from an `http` supplier (docs/supplier-contract.md, "Ordering"): the calls of its ordering API
 * through the source's resilience policy, and the operations on them.
 */

export {
  type HttpSupplierCall,
  HttpSupplierCalls,
  type HttpSupplierScope,
  ordersBaseUrl,
} from './calls.js';
export { HttpSupplierOrdering } from './ordering.js';
