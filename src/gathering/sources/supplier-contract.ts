import { z } from 'zod';

/**
 * The supplier availability contract the `http` source speaks (docs/supplier-contract.md):
 * `POST <endpoint>` with {@link SupplierRequest}, answered by {@link supplierResponseSchema}.
 * Bandwidth in kbps, contract terms in months, prices as decimals in the currency's major unit. Its
 * ordering part is below ({@link SupplierOrderRequest}, {@link supplierOrderSchema}).
 */
export interface SupplierRequest {
  request_id: string;
  address: {
    country_code: string;
    postal_code: string;
    house_number: string;
    house_number_addition: string;
    street: string;
    city: string;
    /** The install place itself (given, or the address's own point); null when only approximate or unknown. */
    coordinates: { latitude: number; longitude: number } | null;
  };
  filters: {
    bandwidths: { download: number; upload: number }[];
    networks: string[];
    contract_terms: number[];
    connection_types: string[];
    technology_types: string[];
  };
}

const code = z.string().min(1).max(50);

/** One offer in a supplier's answer. */
export const supplierOfferSchema = z.object({
  /** How the offer is ordered (`offer_id` of an order item); absent: it is ordered by hand. */
  id: z.string().min(1).max(200).optional(),
  network: z.string().min(1).max(100),
  technology_type: code,
  connection_type: code,
  bandwidth: z.object({
    download: z.number().int().min(1).max(100_000_000),
    upload: z.number().int().min(0).max(100_000_000),
  }),
  contract_term: z.number().int().min(1).max(240),
  mrc: z.number().min(0).max(10_000_000),
  nrc: z.number().min(0).max(10_000_000),
  currency: z.string().regex(/^[A-Z]{3}$/),
  lead_time_days: z.number().int().min(0).max(3650).optional(),
});

/** A supplier's answer: its offers (an empty list means "not deliverable here"). */
export const supplierResponseSchema = z.object({ offers: z.array(supplierOfferSchema).max(5000) });

/** A parsed supplier answer. */
export type SupplierResponse = z.infer<typeof supplierResponseSchema>;

/** A supplier's id of something (an order, an offer, a product): 1–200 characters. */
const supplierId = z.string().min(1).max(200);
/** An ISO 8601 date-time with an offset. */
const dateTime = z.iso.datetime({ offset: true });

/** `POST <base>/orders`: one order of the gateway's, its lines as items (docs/supplier-contract.md, "Place an order"). */
export const supplierOrderRequestSchema = z.object({
  /** The gateway's supplier order id: the same one again answers the order already there (200). */
  external_id: supplierId,
  customer_name: z.string().min(1).max(200),
  requested_completion_date: dateTime,
  /** Who to call about the order; null when the reseller named no one. */
  contact: z
    .object({
      name: z.string().min(1).max(200),
      email: z.string().min(1).max(320),
      phone: z.string().min(1).max(50).optional(),
    })
    .nullable(),
  items: z
    .array(
      z.object({
        /** The gateway's order line id, answered back as the item's `id`. */
        id: supplierId,
        offer_id: supplierId,
        contract_term_months: z.number().int().min(1).max(240),
      }),
    )
    .min(1)
    .max(1000),
});

/** An order as the gateway sends it. */
export type SupplierOrderRequest = z.infer<typeof supplierOrderRequestSchema>;

/** `POST <base>/orders/{id}/cancel`: why the reseller cancels. */
export const supplierCancelRequestSchema = z.object({ reason: z.string().min(1).max(1000) });

/** Where one item of a supplier's order stands; the last three are final. */
export const supplierItemStatuses = ['accepted', 'in_progress', 'completed', 'failed', 'cancelled'] as const;
/** An item's status. */
export type SupplierItemStatus = (typeof supplierItemStatuses)[number];

/** Where a cancellation stands: `requested`, then `done` or `declined` (final). */
export const supplierCancellationStatuses = ['requested', 'done', 'declined'] as const;
/** A cancellation's status. */
export type SupplierCancellationStatus = (typeof supplierCancellationStatuses)[number];

/** One item of a supplier's order. */
export const supplierOrderItemSchema = z.object({
  id: supplierId,
  offer_id: supplierId,
  status: z.enum(supplierItemStatuses),
  expected_completion_date: dateTime.nullish(),
  completion_date: dateTime.nullish(),
  /** The delivered service's id at the supplier, once completed. */
  product_id: supplierId.nullish(),
  /** Why the item failed, in words. */
  error: z.string().max(2000).nullish(),
});

/**
 * A supplier's order (the answer to placing, reading or cancelling it). Its `status` follows its items:
 * `accepted`, `in_progress`, then `completed`, `failed` or `cancelled`.
 */
export const supplierOrderSchema = z.object({
  id: supplierId,
  external_id: supplierId,
  status: z.enum(['accepted', 'in_progress', 'completed', 'failed', 'cancelled']),
  items: z.array(supplierOrderItemSchema).min(1).max(1000),
  /** Null (or absent) until the order was asked to be cancelled; `reason` is the supplier's, when declined. */
  cancellation: z
    .object({ status: z.enum(supplierCancellationStatuses), reason: z.string().max(2000).nullish() })
    .nullish(),
});

/** A parsed supplier order. */
export type SupplierOrder = z.infer<typeof supplierOrderSchema>;

/** `GET <base>/orders?external_id=…`: the orders sent with that `external_id` (none or one). */
export const supplierOrderListSchema = z.object({ orders: z.array(supplierOrderSchema).max(100) });

/** A supplier's refusal (`4xx`, `409`): why, in words. */
export const supplierErrorSchema = z.object({ error: z.string().max(2000) });
