import { expect } from 'vitest';
import { applyMarkup } from '../../src/gathering/pricing.js';
import type { SonataSeller } from '../../src/gathering/simulator/sonata/server.js';
import type { SonataSourceSettings } from '../../src/gathering/sources/mef-sonata/settings.js';
import type { SourceOffer } from '../../src/gathering/sources/types.js';
import { type Json, type TestTenant, waitFor } from '../helpers/app.js';

/*
 * What the gateway-level Sonata tests share: registering the simulator's sellers as mef-sonata sources of a
 * tenant through GraphQL, the products a seller's catalogue should give under a markup plan, and the calls a
 * seller saw.
 */

const REGISTER = `mutation ($input: RegisterSonataSourceInput!) {
  registerSonataSource(input: $input) { source { id } }
}`;

/** The places the seller qualifies for the contract's two example addresses (fielded; a point in Amsterdam). */
export const examplePlaces = [
  { countryCode: 'NL', postalCode: '1016XA', city: 'Amsterdam' },
  { countryCode: 'NL', postalCode: '', city: 'Amsterdam' },
];

/** Settings as GraphQL takes them (the interaction as its enum value). */
export function graphqlSettings(settings: SonataSourceSettings) {
  return { ...settings, interaction: settings.interaction.toUpperCase() };
}

/**
 * Registers a seller as the tenant's source `<key>-sonata` named `<network> via Sonata`; `input` overrides
 * fields of `RegisterSonataSourceInput` (another key or name, `timeoutMs`). Returns the source id.
 */
export async function registerSonata(
  tenant: TestTenant,
  key: string,
  network: string,
  settings: SonataSourceSettings,
  input: { key?: string; name?: string; timeoutMs?: number } = {},
): Promise<string> {
  const result = await tenant.api.graphql(REGISTER, {
    input: {
      key: `${key}-sonata`,
      name: `${network} via Sonata`,
      network,
      countryCodes: ['NL'],
      sonata: graphqlSettings(settings),
      ...input,
    },
  });
  expect(result.errors).toBeUndefined();
  return result.data.registerSonataSource.source.id;
}

/** A 25 % MRC / 10 % NRC default plan, so the products show the request's plan at work. */
export async function markupPlan(tenant: TestTenant): Promise<void> {
  const created = await tenant.api.graphql(
    `mutation { createPricePlan(input: { name: "Sonata resale", isDefault: true, mrcMarkupPercent: 25, nrcMarkupPercent: 10 }) { pricePlan { id } } }`,
  );
  expect(created.errors).toBeUndefined();
}

/** A seller's offers as REST products under the markup plan, sorted for comparison. */
export function products(offers: SourceOffer[]): string[] {
  return offers
    .map((offer) =>
      JSON.stringify({
        network: offer.network,
        technology_type: offer.technologyType,
        connection_type: offer.connectionType,
        bandwidth: { download: offer.downloadKbps, upload: offer.uploadKbps },
        contract_term: offer.contractTermMonths,
        mrc: applyMarkup(offer.purchaseMrcMinor, 2500) / 100,
        nrc: applyMarkup(offer.purchaseNrcMinor, 1000) / 100,
        currency: offer.currency,
      }),
    )
    .sort();
}

/**
 * A REST product as {@link products} writes one: without its id, document type and `source` (which
 * `sourcesOf` checks).
 */
export const comparable = (product: Json) => {
  const { id: _id, _document_type: _type, source: _source, ...rest } = product;
  return JSON.stringify({
    ...rest,
    bandwidth: { download: rest.bandwidth.download, upload: rest.bandwidth.upload },
  });
};

/** Each product's network with the id, name and type of the source that offered it, sorted. */
export const sourcesOf = (products: Json[]) =>
  [
    ...new Set(
      products.map((product) =>
        JSON.stringify([product.network, product.source.id, product.source.name, product.source.type]),
      ),
    ),
  ].sort();

export async function completed(tenant: TestTenant, id: string): Promise<Json> {
  const done = await waitFor(
    () => tenant.api.get(`/availability-requests/${id}`),
    (response) => response.body.data.status === 'completed',
    30_000,
  );
  return done.body.data;
}

/** `METHOD /resource[/id] status` of a seller's calls below the API base, ids as `{id}`. */
export function calls(seller: SonataSeller, sourceKey: string): string[] {
  return seller.exchanges
    .filter((exchange) => exchange.path.startsWith(`/sonata/${sourceKey}/`))
    .map((exchange) => {
      const below = exchange.path.replace(/^.*\/mefApi\/sonata\/[A-Za-z]+\/v\d+/, '');
      return `${exchange.method} ${below.replace(/\/[0-9a-f-]{36}$/, '/{id}')} ${exchange.status}`;
    });
}
