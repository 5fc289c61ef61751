import { afterAll, beforeAll, expect } from 'vitest';
import type { SourceRow, StoredAvailabilityRequestRecord } from '../../../src/db/rows.js';
import { simulatedOffers } from '../../../src/gathering/simulator/offers.js';
import { demoCatalogPath, readCatalogFile } from '../../../src/gathering/sources/catalog-file.js';
import type { PolicySettings } from '../../../src/gathering/sources/policies.js';
import type { SupplierRequest } from '../../../src/gathering/sources/supplier-contract.js';
import type { SourceOffer, SourceQuery } from '../../../src/gathering/sources/types.js';
import { listInstanceSources, registerInstanceSource } from '../../../src/resolvers/operator.js';
import { startTestServer, type TestServer, type TestTenant } from '../../helpers/app.js';
import { storedRows } from '../../helpers/store.js';

/*
 * What the tests of the http source share (http, http-own-supplier): the adapter's settings, a server with a
 * tenant and one stored request for the file, sources registered in that tenant, and how a failure and the
 * simulator's offers look once the adapter is done with them.
 */

/** Fast backoff, so only a `Retry-After` can make a retry wait long; a breaker that half-opens quickly. */
export const settings: PolicySettings = {
  retries: 2,
  baseDelayMs: 5,
  maxDelayMs: 5_000,
  breakerThreshold: 5,
  halfOpenAfterMs: 300,
  queueSize: 1_000,
};

const catalog = readCatalogFile(demoCatalogPath);

/** The file's server, its tenant and the stored request every source is asked about. */
export interface StoredRequest {
  server: TestServer;
  tenant: TestTenant;
  record: StoredAvailabilityRequestRecord;
}

/**
 * Starts the file's server (beforeAll) with a tenant and one stored request, hands them to `set`, and closes
 * it (afterAll). The request is created while the instance has no source, so nothing but the test ever calls
 * a supplier. Returns what the tests call on them: {@link registerSource}, {@link queryFor} and
 * {@link expectedOffers}.
 */
export function storedRequestPerFile(set: (started: StoredRequest) => void = () => {}) {
  let server: TestServer;
  let tenant: TestTenant;
  let record: StoredAvailabilityRequestRecord;
  let sourceCount = 0;

  beforeAll(async () => {
    server = await startTestServer({ startWorker: false });
    tenant = await server.tenant({ demoCatalog: false, roles: ['instance_admin', 'connectivity_check'] });
    const created = await tenant.api.post('/availability-requests', [
      {
        address: {
          country_code: 'NL',
          postal_code: '1016 XA',
          house_number: '206',
          house_number_addition: 'H',
        },
      },
    ]);
    expect(created.status).toBe(201);
    // A source is given whole rows (as the worker claims them), not what the API shows.
    const { db } = server.app.services;
    const [request] = (await storedRows(db, 'availabilityRequests', {
      id: created.body.data[0].id,
    })) as StoredAvailabilityRequestRecord['request'][];
    if (!request) throw new Error('the request was not stored');
    const [address] = (await storedRows(db, 'addresses', {
      id: request.addressId,
    })) as StoredAvailabilityRequestRecord['address'][];
    if (!address) throw new Error('the address was not stored');
    record = { request, address };
    set({ server, tenant, record });
  });
  afterAll(() => server.close());

  /** Registers an http source in the tenant as an operator would and reads its row back. */
  async function registerSource(
    endpointUrl: string,
    fields: Record<string, unknown> = {},
  ): Promise<SourceRow> {
    sourceCount += 1;
    const { id } = await registerInstanceSource(server.app.services, tenant.instanceId, {
      key: `supplier-${sourceCount}`,
      name: `Supplier ${sourceCount}`,
      network: 'KPN',
      countryCodes: ['NL'],
      endpointUrl,
      timeoutMs: 5_000,
      concurrency: 4,
      ...fields,
    });
    const row = (await listInstanceSources(server.app.services, tenant.instanceId)).find((s) => s.id === id);
    if (!row) throw new Error(`source ${id} was not listed`);
    return row;
  }

  function queryFor(source: SourceRow): SourceQuery {
    return { source, request: record.request, address: record.address, signal: new AbortController().signal };
  }

  /** The simulator's offers for a supplier at the request's address, as the adapter returns them. */
  function expectedOffers(supplierKey: string): SourceOffer[] {
    const asked: SupplierRequest = {
      request_id: record.request.id,
      address: {
        country_code: 'NL',
        postal_code: record.address.postalCode,
        house_number: record.address.houseNumber,
        house_number_addition: record.address.houseNumberAddition,
        street: record.address.street,
        city: record.address.city,
        coordinates: null,
      },
      filters: {
        bandwidths: [],
        networks: [],
        contract_terms: [],
        connection_types: [],
        technology_types: [],
      },
    };
    return simulatedOffers(catalog, supplierKey, asked).map((offer) => ({
      network: offer.network,
      technologyType: offer.technology_type,
      connectionType: offer.connection_type,
      downloadKbps: offer.bandwidth.download,
      uploadKbps: offer.bandwidth.upload,
      contractTermMonths: offer.contract_term,
      // The catalogue holds cents; the simulator divided them by 100.
      purchaseMrcMinor: Math.round(offer.mrc * 100),
      purchaseNrcMinor: Math.round(offer.nrc * 100),
      currency: 'EUR',
      // Every simulated offer has an id, so each is ordered from the supplier.
      orderTerms: { kind: 'http', offerId: offer.id ?? '' },
    }));
  }

  return { registerSource, queryFor, expectedOffers };
}

/** What a source failure looks like once the adapter gave up on it. */
export function failure(code: string, message: string | RegExp) {
  return expect.objectContaining({
    name: 'SourceError',
    code,
    message: typeof message === 'string' ? message : expect.stringMatching(message),
    retryable: false,
  });
}
