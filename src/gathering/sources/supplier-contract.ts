import { z } from 'zod';

/**
 * The supplier availability contract the `http` source speaks (docs/supplier-contract.md):
 * `POST <endpoint>` with {@link SupplierRequest}, answered by {@link supplierResponseSchema}.
 * Bandwidth in kbps, contract terms in months, prices as decimals in the currency's major unit.
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
