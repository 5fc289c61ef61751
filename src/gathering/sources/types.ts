import type {
  AddressRow,
  AvailabilityRequestRow,
  OfferTerms,
  OrderTerms,
  SourceRow,
  SourceType,
} from '../../db/rows.js';

/**
 * One offer a source returns: its network and the terms the store keeps for it (`OfferTerms`: bandwidth in
 * kbps, contract term in months, purchase prices in minor currency units).
 */
export interface SourceOffer extends OfferTerms {
  network: string;
  /** How to order it from its seller (`mef-sonata` offers); absent or null when it is ordered by hand. */
  orderTerms?: OrderTerms | null;
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

/**
 * What a source left out of an answer that did give offers, with a stable code, e.g.
 * `SONATA_PARTLY_DECLINED` / `3 offers; declined: 5 not serviceable`.
 */
export interface SourceNote {
  code: string;
  message: string;
}

/** A source's answer: its offers, and a note on what it left out (null when nothing). */
export interface SourceAnswer {
  offers: SourceOffer[];
  note: SourceNote | null;
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
  /**
   * Like {@link fetchOffers}, with a note the engine stores on the request's source outcome beside the
   * products (its `error` stays set on a succeeded source). Adapters without anything to note leave it out.
   *
   * @throws as {@link fetchOffers}.
   */
  fetchAnswer?(query: SourceQuery): Promise<SourceAnswer>;
}
