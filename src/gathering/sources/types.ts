import type { AddressRow, AvailabilityRequestRow, SourceRow, SourceType } from '../../db/rows.js';

/**
 * One offer a source returns: bandwidth in kbps, contract term in months, purchase prices in minor
 * currency units (cents).
 */
export interface SourceOffer {
  network: string;
  technologyType: string;
  connectionType: string;
  downloadKbps: number;
  uploadKbps: number;
  contractTermMonths: number;
  purchaseMrcMinor: number;
  purchaseNrcMinor: number;
  currency: string;
}

/** What a source is asked: the request's normalised address and filters. */
export interface SourceQuery {
  source: SourceRow;
  request: AvailabilityRequestRow;
  address: AddressRow;
  /** Aborted when the worker stops or the attempt times out; an adapter must give up promptly. */
  signal: AbortSignal;
}

/** A failure a source reports with a stable code, stored on the request's source outcome. */
export class SourceError extends Error {
  override readonly name = 'SourceError';

  constructor(
    readonly code: string,
    message: string,
    /** Whether another attempt may succeed (timeouts, 5xx) or not (bad credentials, 4xx). */
    readonly retryable: boolean,
    /** The wait the source asked for (`Retry-After`), in milliseconds, when it gave one. */
    readonly retryAfterMs: number | null = null,
  ) {
    super(message);
  }
}

/** A source adapter: one kind of supplier system. */
export interface SourceAdapter {
  readonly type: SourceType;
  /**
   * Asks the source for offers at the query's address. May return offers outside the request's filters;
   * the engine drops those.
   *
   * @throws {SourceError} for a failure of the source; an abort rejects with the signal's reason.
   */
  fetchOffers(query: SourceQuery): Promise<SourceOffer[]>;
}
