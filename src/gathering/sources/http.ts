import { isExactPlace } from '../../geo/index.js';
import { toMinorUnits } from '../../money.js';
import { defaultPolicySettings, type PolicySettings, policyFailure, SourcePolicies } from './policies.js';
import { type SupplierRequest, supplierResponseSchema } from './supplier-contract.js';
import { type SupplierResponse, sendToSupplier } from './supplier-http.js';
import { type SourceAdapter, SourceError, type SourceOffer, type SourceQuery } from './types.js';

/** `Retry-After` (RFC 9110 §10.2.3): delay-seconds or an HTTP-date, as milliseconds from `now`. */
export function parseRetryAfter(value: string | null, now: Date): number | null {
  if (!value) return null;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : Math.max(0, date - now.getTime());
}

function supplierRequest({ request, address }: SourceQuery): SupplierRequest {
  const { filters } = request;
  return {
    request_id: request.id,
    address: {
      country_code: address.countryCode,
      postal_code: address.postalCode,
      house_number: address.houseNumber,
      house_number_addition: address.houseNumberAddition,
      street: address.street,
      city: address.city,
      // A postal-code-area or city centre is not the install place: suppliers get exact points only.
      coordinates:
        address.latitude === null || address.longitude === null || !isExactPlace(address.coordinatesPrecision)
          ? null
          : { latitude: address.latitude, longitude: address.longitude },
    },
    filters: {
      bandwidths: filters.bandwidths,
      networks: filters.networks,
      contract_terms: filters.contractTerms,
      connection_types: filters.connectionTypes,
      technology_types: filters.technologyTypes,
    },
  };
}

/**
 * One call to a supplier: `POST` the request as JSON with the source's bearer credential. Redirects are
 * not followed, bodies over the limit are cut off, and the answer is validated against the supplier
 * contract; each problem becomes a {@link SourceError} (5xx, timeouts and network errors retryable,
 * everything else not).
 */
async function callSupplier(
  query: SourceQuery,
  signal: AbortSignal,
  now: () => Date,
): Promise<SourceOffer[]> {
  const { source } = query;
  if (!source.endpointUrl) throw new SourceError('NOT_CONFIGURED', 'The source has no endpoint URL.', false);
  let response: SupplierResponse;
  try {
    response = await sendToSupplier(source.endpointUrl, {
      method: 'POST',
      signal,
      headers: {
        'content-type': 'application/json',
        accept: 'application/json',
        ...(source.credentials ? { authorization: `Bearer ${source.credentials}` } : {}),
      },
      body: JSON.stringify(supplierRequest(query)),
    });
  } catch (error) {
    // The worker stopping (or its attempt ending) aborts the outer signal: let that through as it is.
    if (query.signal.aborted) throw error;
    if (signal.aborted) throw new SourceError('TIMEOUT', 'The source did not answer in time.', true);
    throw new SourceError('UNREACHABLE', 'The source could not be reached.', true);
  }
  if (response.status >= 300 && response.status < 400) {
    await response.discard();
    throw new SourceError(
      'REDIRECT',
      `The source answered ${response.status} (redirects are not followed).`,
      false,
    );
  }
  if (response.status >= 500) {
    await response.discard();
    const retryAfter = parseRetryAfter(response.header('retry-after'), now());
    throw new SourceError('UPSTREAM_5XX', `The source answered ${response.status}.`, true, retryAfter);
  }
  if (response.status >= 400) {
    await response.discard();
    throw new SourceError('UPSTREAM_4XX', `The source answered ${response.status}.`, false);
  }
  let text: string;
  try {
    text = await response.text();
  } catch (error) {
    // A supplier that sends its head and then stalls times out like one that never answers.
    if (error instanceof SourceError || query.signal.aborted) throw error;
    if (signal.aborted) throw new SourceError('TIMEOUT', 'The source did not answer in time.', true);
    throw new SourceError('UNREACHABLE', 'The connection to the source broke off.', true);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new SourceError('MALFORMED_RESPONSE', 'The source answered with malformed JSON.', false);
  }
  const parsed = supplierResponseSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new SourceError(
      'INVALID_RESPONSE',
      `The source’s answer breaks the supplier contract at /${issue?.path.join('/') ?? ''}: ${issue?.message ?? ''}`,
      false,
    );
  }
  return parsed.data.offers.map((offer) => {
    const mrc = toMinorUnits(offer.mrc, offer.currency);
    const nrc = toMinorUnits(offer.nrc, offer.currency);
    if (mrc === null || nrc === null) {
      throw new SourceError(
        'INVALID_RESPONSE',
        `A price has more decimals than ${offer.currency} allows.`,
        false,
      );
    }
    return {
      network: offer.network,
      technologyType: offer.technology_type,
      connectionType: offer.connection_type,
      downloadKbps: offer.bandwidth.download,
      uploadKbps: offer.bandwidth.upload,
      contractTermMonths: offer.contract_term,
      purchaseMrcMinor: mrc,
      purchaseNrcMinor: nrc,
      currency: offer.currency,
      // An offer with an id is ordered from the supplier (docs/supplier-contract.md, "Ordering").
      ...(offer.id === undefined ? {} : { orderTerms: { kind: 'http' as const, offerId: offer.id } }),
    };
  });
}

/**
 * The `http` source: asks a supplier's availability API (docs/supplier-contract.md) through the source's
 * resilience policy (bulkhead, retries with backoff, circuit breaker, timeout). An offer with an `id` comes
 * with its order terms (`{ kind: 'http', offerId }`); one without is ordered by hand.
 */
export function createHttpSource(
  options: { settings?: PolicySettings; now?: () => Date } = {},
): SourceAdapter & { policies: SourcePolicies } {
  const policies = new SourcePolicies(options.settings ?? defaultPolicySettings);
  const now = options.now ?? (() => new Date());
  return {
    type: 'http',
    policies,
    async fetchOffers(query) {
      try {
        return await policies
          .for(query.source)
          .execute(({ signal }) => callSupplier(query, signal, now), query.signal);
      } catch (error) {
        const failure = policyFailure(error);
        // The policy already retried what was worth retrying: the task ends with this failure.
        throw failure instanceof SourceError
          ? new SourceError(failure.code, failure.message, false)
          : failure;
      }
    },
  };
}
