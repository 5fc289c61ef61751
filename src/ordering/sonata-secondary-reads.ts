/**
 * The calls a Sonata step makes after it read the order (`GET /productOrder/{id}`, MEF 123): the Charges of
 * held items (the list `GET /charge`, each Charge `GET /charge/{id}`, the ones the seller notified), the
 * products of completed items (MEF 116 `GET /product/{id}`) and the cancellation. Each is a call of its own
 * — its own deadline (the source's `timeoutMs`), the source policy's own retries — whose failure is given
 * back instead of thrown (issue 49, item 1), so the order's own read is recorded whatever they do.
 */
import type { SonataCallScope } from '../gathering/sources/mef-sonata/client.js';
import type { SourceError } from '../gathering/sources/types.js';
import type { SonataChargeView, SonataProductView } from './mef-sonata/order-answers.js';
import type { SonataOrdering } from './mef-sonata/ordering-client.js';
import { type Attempt, attemptCall } from './secondary-calls.js';

/** What the step learnt of the Charges of its order's items besides the items' own `charge` references. */
export interface SonataChargeReads {
  /**
   * The Charges read this step: those `GET /charge` lists as awaiting the buyer, and those a notification
   * named that are this order's (`productOrderId`), each as `GET /charge/{id}` shows it.
   */
  charges: SonataChargeView[];
  /** Why `GET /charge` could not be read (asked only while an item is `held`); null when it was. */
  listFailure: SourceError | null;
  /**
   * Listed or notified Charges whose read failed, in the order they were asked (a notified one the seller
   * does not know is consumed instead).
   */
  unread: { id: string; failure: SourceError }[];
  /**
   * The notified ids done with (`SupplierOrderProgress.consumedChargeIds`): read, whatever order they were
   * of, or unknown to the seller (`SONATA_NOT_FOUND`, which reading again does not change). The others stay
   * to be read again.
   */
  consumed: string[];
}

/** The secondary calls of one step, on the step's scope (its source, settings and query signal). */
export class SonataSecondaryReads {
  constructor(
    private readonly ordering: SonataOrdering,
    private readonly scope: SonataCallScope,
  ) {}

  /**
   * One call with a deadline of its own (the step's signal, or the source's `timeoutMs` from now): a call
   * before it that timed out does not spend this one's time. A supplier's failure comes back as the
   * attempt's (`attemptCall`); the store unavailable and the worker stopping are thrown.
   */
  attempt<T>(call: (scope: SonataCallScope) => Promise<T>): Promise<Attempt<T>> {
    const { querySignal, source } = this.scope;
    const scope = {
      ...this.scope,
      deadline: AbortSignal.any([querySignal, AbortSignal.timeout(source.timeoutMs)]),
    };
    return attemptCall(querySignal, () => call(scope));
  }

  /** A Charge (`GET /charge/{id}`). */
  charge(chargeId: string): Promise<Attempt<SonataChargeView>> {
    return this.attempt((scope) => this.ordering.retrieveCharge(scope, chargeId));
  }

  /** A product of the seller's inventory (MEF 116 `GET /product/{id}`). */
  product(productId: string): Promise<Attempt<SonataProductView>> {
    return this.attempt((scope) => this.ordering.retrieveProduct(scope, productId));
  }

  /**
   * The Charges of the seller order `sellerOrderId`'s items the step needs beyond their `charge` references:
   * while an item is `held` (`listed`), those `GET /charge?productOrderId=…` lists as awaiting the buyer
   * (MEF 123 CR3: a seller that uses Charges offers the list); and, held or not, each of `notifiedIds` (the
   * Charge events of the source since the last step, `SupplierOrderRow.notifiedChargeIds`), read by id — so
   * a held item's Charge still arrives when the list fails. A notified Charge of another order is read,
   * consumed and left out.
   */
  async charges(
    sellerOrderId: string,
    listed: boolean,
    notifiedIds: readonly string[],
  ): Promise<SonataChargeReads> {
    const reads: SonataChargeReads = { charges: [], listFailure: null, unread: [], consumed: [] };
    // Whether each id read so far is done with: read, or unknown to the seller.
    const done = new Map<string, boolean>();
    const readEach = async (ids: readonly string[], notified: boolean) => {
      for (const id of ids) {
        let doneWith = done.get(id);
        if (doneWith === undefined) {
          const charge = await this.charge(id);
          doneWith = charge.ok || charge.failure.code === 'SONATA_NOT_FOUND';
          done.set(id, doneWith);
          // A notified id the seller does not know is dropped, not shown: nothing will make it readable.
          if (!charge.ok) {
            if (!(notified && doneWith)) reads.unread.push({ id, failure: charge.failure });
          } else if (charge.value.productOrderId === sellerOrderId) reads.charges.push(charge.value);
        }
        if (notified && doneWith) reads.consumed.push(id);
      }
    };
    if (listed) {
      const list = await this.attempt((scope) => this.ordering.awaitedCharges(scope, sellerOrderId));
      if (list.ok) await readEach(list.value, false);
      else reads.listFailure = list.failure;
    }
    await readEach(notifiedIds, true);
    return reads;
  }
}
