import type { z } from 'zod';
import {
  type SupplierOrder,
  type SupplierOrderRequest,
  supplierOrderListSchema,
  supplierOrderSchema,
} from '../../gathering/sources/supplier-contract.js';
import { SourceError } from '../../gathering/sources/types.js';
import type { HttpSupplierCalls, HttpSupplierScope } from './calls.js';

const segment = (value: string) => `/${encodeURIComponent(value)}`;

/** A supplier's answer checked against the contract's schema. */
function parsed<T extends z.ZodType>(schema: T, json: unknown, what: string): z.output<T> {
  const result = schema.safeParse(json);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  throw new SourceError(
    'INVALID_RESPONSE',
    `The supplier’s answer to the ${what} breaks the supplier contract at /${issue?.path.join('/') ?? ''}: ${issue?.message ?? ''}`,
    false,
  );
}

/**
 * The gateway's side of an `http` supplier's ordering API (docs/supplier-contract.md, "Ordering"): place an
 * order, find it by the gateway's id, read it, cancel it. Every call goes through {@link HttpSupplierCalls},
 * so failures are its {@link SourceError}s (plus `INVALID_RESPONSE` for an answer that breaks the contract).
 */
export class HttpSupplierOrdering {
  constructor(private readonly calls: HttpSupplierCalls) {}

  /**
   * Places an order: `POST <base>/orders`, sent once. After a retryable failure (a timeout, a `5xx`, a `429`)
   * the supplier may have taken it, so it is looked for by its `external_id` at once ({@link findByExternalId},
   * with the same deadline as a call) and returned when it is there; else the failure is thrown, and the
   * caller must look again before it sends the order anew.
   *
   * @returns the supplier's order (`201`, or `200` when it had it already).
   * @throws {SourceError} as the class says; `UPSTREAM_4XX` when the supplier refuses it (it kept nothing).
   */
  async place(scope: HttpSupplierScope, order: SupplierOrderRequest): Promise<SupplierOrder> {
    const what = 'order placement';
    try {
      const json = await this.calls.call(scope, {
        method: 'POST',
        path: '/orders',
        body: order,
        expect: [200, 201],
        what,
        retry: false,
      });
      return parsed(supplierOrderSchema, json, what);
    } catch (error) {
      if (!(error instanceof SourceError) || !error.retryable) throw error;
      const placed = await this.findByExternalId(scope, order.external_id).catch(() => null);
      if (placed) return placed;
      throw error;
    }
  }

  /**
   * The order sent with `externalId`, or null when the supplier has none:
   * `GET <base>/orders?external_id=…`, matching `external_id` itself (a supplier may ignore the filter).
   *
   * @throws {SourceError} as the class says.
   */
  async findByExternalId(scope: HttpSupplierScope, externalId: string): Promise<SupplierOrder | null> {
    const what = `order lookup by external_id ${externalId}`;
    const json = await this.calls.call(scope, {
      method: 'GET',
      path: '/orders',
      query: { external_id: externalId },
      expect: [200],
      what,
    });
    const { orders } = parsed(supplierOrderListSchema, json, what);
    return orders.find((order) => order.external_id === externalId) ?? null;
  }

  /**
   * The order as the supplier has it now: `GET <base>/orders/{id}`.
   *
   * @throws {SourceError} as the class says; `UPSTREAM_4XX` (404) for an id the supplier does not know.
   */
  async read(scope: HttpSupplierScope, supplierOrderId: string): Promise<SupplierOrder> {
    const what = `order ${supplierOrderId} read`;
    const json = await this.calls.call(scope, {
      method: 'GET',
      path: `/orders${segment(supplierOrderId)}`,
      expect: [200],
      what,
    });
    return parsed(supplierOrderSchema, json, what);
  }

  /**
   * Asks the supplier to cancel an order: `POST <base>/orders/{id}/cancel` with the reseller's reason. Asking
   * again answers the cancellation the order has (the contract), so a failed call may be retried.
   *
   * @returns the order with its `cancellation` (`requested`, `done` or `declined`).
   * @throws {SourceError} as the class says; `UPSTREAM_4XX` (409) when every item had ended already.
   */
  async cancel(scope: HttpSupplierScope, supplierOrderId: string, reason: string): Promise<SupplierOrder> {
    const what = `order ${supplierOrderId} cancellation`;
    const json = await this.calls.call(scope, {
      method: 'POST',
      path: `/orders${segment(supplierOrderId)}/cancel`,
      body: { reason },
      expect: [200, 202],
      what,
    });
    return parsed(supplierOrderSchema, json, what);
  }
}
