import { z } from 'zod';
import { parseAnswer } from '../../gathering/sources/mef-sonata/answers.js';
import type { SonataCallScope, SonataClient } from '../../gathering/sources/mef-sonata/client.js';
import { SourceError } from '../../gathering/sources/types.js';
import {
  type CancellationFound,
  parseSonataCancellation,
  parseSonataCancellationList,
  type SonataCancellationView,
} from './cancel-answers.js';
import { cancelProductOrderBody, type SonataCancellationToSend } from './cancel-request.js';
import {
  awaitedChargeIds,
  chargeItemIdsSchema,
  type ProductOrderFound,
  parseSonataCharge,
  parseSonataOrder,
  parseSonataOrderList,
  parseSonataProduct,
  type SonataChargeView,
  type SonataOrderView,
  type SonataProductView,
} from './order-answers.js';
import { ORDER_HUB_QUERY } from './order-events.js';
import { productOrderCreateBody, type SupplierOrderToPlace } from './order-request.js';

/** `EventSubscription` (201 to `POST /hub`). */
const subscriptionSchema = z.looseObject({ id: z.string().min(1).max(200), callback: z.string().max(2000) });

/** Statuses of `POST /hub` that mean "this seller sends no notifications" (501 as documented; 404/405 in practice). */
const NO_HUB = [404, 405, 501];

/** Orders asked per page of `GET /productOrder`, and the pages read at most, when looking for an `externalId`. */
const PAGE_SIZE = 100;
const MAX_PAGES = 20;

const segment = (value: string) => `/${encodeURIComponent(value)}`;

/** A `501` to an optional operation: the seller does not offer it, and asking again changes nothing. */
const notImplemented = (what: string) =>
  new SourceError(
    'SONATA_NOT_IMPLEMENTED',
    `The seller answered 501 to the ${what}: it does not offer it.`,
    false,
  );

/**
 * The buyer side of MEF LSO Sonata ordering on one seller: MEF 123 Product Order Management 10.0.0 (orders,
 * their cancellations, Charges, the hub) and MEF 116 Product Inventory 7.0.2 (the products an order made). Every call goes
 * through the source's {@link SonataClient} — its token, resilience policy and error mapping — so failures
 * are {@link SourceError}s with the codes of `sonataErrorCodes` and the shared ones (`TIMEOUT`,
 * `UPSTREAM_5XX`, `INVALID_RESPONSE`, …); a call whose query signal aborts rejects with its reason.
 */
export class SonataOrdering {
  constructor(private readonly client: SonataClient) {}

  /**
   * The order placed with `externalId` (our supplier order id), or null when the seller has none: how an
   * order is found again after a crash between sending it and keeping its id. Lists
   * `GET /productOrder?externalId=…` page by page (`offset`/`limit`, at most 2 000 orders) and matches
   * `externalId` itself, since a seller may ignore the filter; of several matches, the one ordered first
   * (`orderDate`) is retrieved in full.
   *
   * @throws {SourceError} as the class says.
   */
  async findByExternalId(scope: SonataCallScope, externalId: string): Promise<SonataOrderView | null> {
    const what = 'Product Order list';
    const matches: ProductOrderFound[] = [];
    let previousFirst: string | undefined;
    for (let page = 0; page < MAX_PAGES; page += 1) {
      const answer = await this.client.call(scope, {
        api: 'order',
        method: 'GET',
        path: '/productOrder',
        query: { externalId, offset: String(page * PAGE_SIZE), limit: String(PAGE_SIZE) },
        expect: [200],
        what,
      });
      const orders = parseSonataOrderList(answer.body, what);
      matches.push(...orders.filter((order) => order.externalId === externalId));
      // A short page is the last; a page like the one before means the seller ignores `offset`.
      if (orders.length < PAGE_SIZE || orders[0]?.id === previousFirst || matches.length > 0) break;
      previousFirst = orders[0]?.id;
    }
    const first = matches.sort((a, b) => Date.parse(a.orderDate) - Date.parse(b.orderDate))[0];
    return first ? this.retrieve(scope, first.id) : null;
  }

  /**
   * Places a supplier order: `POST /productOrder` with {@link productOrderCreateBody} (the source's buyer
   * contact number when the order's contact has none), sent once — MEF 123 has no idempotency key, so a
   * timeout or 5xx is not retried blindly: the order is looked for by its `externalId` instead, and returned
   * when the seller did take it. When it is not found the failure is thrown; the caller must then call
   * {@link findByExternalId} again before placing the order anew (the seller may still be taking it).
   *
   * @returns the seller's `ProductOrder` (201), usually `acknowledged`.
   * @throws {RangeError} for an order without items (MEF 123 R12).
   * @throws {SourceError} as the class says; a 422's `Error422` list as `SONATA_UNPROCESSABLE`.
   */
  async create(scope: SonataCallScope, order: SupplierOrderToPlace): Promise<SonataOrderView> {
    if (order.items.length === 0)
      throw new RangeError('A Product Order needs at least one item (MEF 123 R12).');
    const what = 'Product Order create';
    try {
      const answer = await this.client.call(scope, {
        api: 'order',
        method: 'POST',
        path: '/productOrder',
        body: productOrderCreateBody(order, scope.settings.buyerContact.number),
        expect: [201],
        what,
        retry: false,
      });
      return parseSonataOrder(answer.body, what);
    } catch (error) {
      if (!(error instanceof SourceError) || !error.retryable) throw error;
      // The POST's deadline may be spent (a timeout): the lookup gets one of its own.
      const lookup = {
        ...scope,
        deadline: AbortSignal.any([scope.querySignal, AbortSignal.timeout(scope.source.timeoutMs)]),
      };
      const placed = await this.findByExternalId(lookup, order.externalId).catch(() => null);
      if (placed) return placed;
      throw error;
    }
  }

  /**
   * The order as the seller has it now (`GET /productOrder/{id}`).
   *
   * @throws {SourceError} as the class says; `SONATA_NOT_FOUND` for an id the seller does not know.
   */
  async retrieve(scope: SonataCallScope, sellerOrderId: string): Promise<SonataOrderView> {
    const what = `Product Order ${sellerOrderId} retrieve`;
    const answer = await this.client.call(scope, {
      api: 'order',
      method: 'GET',
      path: `/productOrder${segment(sellerOrderId)}`,
      expect: [200],
      what,
    });
    return parseSonataOrder(answer.body, what);
  }

  /**
   * Asks the seller to cancel an order (MEF 123 UC 8): `POST /cancelProductOrder` with
   * {@link cancelProductOrderBody} (the source's buyer contact number when the contact has none), sent once —
   * a cancellation has no idempotency key and `CancelProductOrder_Create` no `externalId`, so after a
   * retryable failure (a timeout, a 5xx) the seller may have taken it: call {@link findCancellations} before
   * sending it again. Follow it with {@link retrieveCancellation}; its Charge, if any, is read and answered
   * with {@link retrieveCharge} and {@link answerCharge}.
   *
   * @returns the seller's `CancelProductOrder` (201): `acknowledged`, or `rejected` at once.
   * @throws {SourceError} as the class says; a 422's `Error422` list (no such order, an order that can no
   *   longer be cancelled, a missing contact, …) as `SONATA_UNPROCESSABLE`; `SONATA_NOT_IMPLEMENTED` (not
   *   retryable) when the seller offers no cancellation (`501`: use case 8 is optional).
   */
  async cancel(scope: SonataCallScope, input: SonataCancellationToSend): Promise<SonataCancellationView> {
    const what = `Cancel Product Order create for Product Order ${input.productOrderId}`;
    const answer = await this.client.call(scope, {
      api: 'order',
      method: 'POST',
      path: '/cancelProductOrder',
      body: cancelProductOrderBody(input, scope.settings.buyerContact.number),
      expect: [201],
      tolerate: [501],
      what,
      retry: false,
    });
    if (answer.status === 501) throw notImplemented(what);
    return parseSonataCancellation(answer.body, what);
  }

  /**
   * Every Cancel Product Order of an order, each as the seller has it now, in the order the seller lists them:
   * how a cancellation sent before a crash (or a failed {@link cancel}) is found again. Lists
   * `GET /cancelProductOrder?productOrderId=…` page by page (`offset`/`limit`, at most 2 000) and matches
   * `productOrder.productOrderId` itself, since a seller may ignore the filter; then retrieves each match
   * (`GET /cancelProductOrder/{id}`: the list lacks `cancellationDeniedReason` and `charge`). Empty when the
   * seller offers no cancellation (`501`).
   *
   * @throws {SourceError} as the class says.
   */
  async findCancellations(scope: SonataCallScope, productOrderId: string): Promise<SonataCancellationView[]> {
    const what = `Cancel Product Order list of Product Order ${productOrderId}`;
    const matches = new Map<string, CancellationFound>();
    let previousFirst: string | undefined;
    for (let page = 0; page < MAX_PAGES; page += 1) {
      const answer = await this.client.call(scope, {
        api: 'order',
        method: 'GET',
        path: '/cancelProductOrder',
        query: { productOrderId, offset: String(page * PAGE_SIZE), limit: String(PAGE_SIZE) },
        expect: [200],
        tolerate: [501],
        what,
      });
      if (answer.status === 501) return [];
      const entries = parseSonataCancellationList(answer.body, what);
      for (const entry of entries)
        if (entry.productOrder.productOrderId === productOrderId) matches.set(entry.id, entry);
      // A short page is the last; a page like the one before means the seller ignores `offset`.
      if (entries.length < PAGE_SIZE || entries[0]?.id === previousFirst) break;
      previousFirst = entries[0]?.id;
    }
    const views: SonataCancellationView[] = [];
    for (const id of matches.keys()) views.push(await this.retrieveCancellation(scope, id));
    return views;
  }

  /**
   * A Cancel Product Order as the seller has it now (`GET /cancelProductOrder/{id}`, MEF 123 UC 10).
   *
   * @throws {SourceError} as the class says; `SONATA_NOT_FOUND` for an id the seller does not know.
   */
  async retrieveCancellation(scope: SonataCallScope, id: string): Promise<SonataCancellationView> {
    const what = `Cancel Product Order ${id} retrieve`;
    const answer = await this.client.call(scope, {
      api: 'order',
      method: 'GET',
      path: `/cancelProductOrder${segment(id)}`,
      expect: [200],
      what,
    });
    return parseSonataCancellation(answer.body, what);
  }

  /**
   * A Charge the seller raised (`GET /charge/{id}`), amounts in minor units.
   *
   * @throws {SourceError} as the class says; `INVALID_RESPONSE` also for an amount that is no exact amount
   *   of an ISO 4217 currency.
   */
  async retrieveCharge(scope: SonataCallScope, chargeId: string): Promise<SonataChargeView> {
    const what = `Charge ${chargeId} retrieve`;
    const answer = await this.client.call(scope, {
      api: 'order',
      method: 'GET',
      path: `/charge${segment(chargeId)}`,
      expect: [200],
      what,
    });
    return parseSonataCharge(answer.body, what);
  }

  /**
   * The Charges of an order that await the buyer's answer (`GET /charge?productOrderId=…`, state
   * `awaitingResponse`): how a buyer without notifications learns why an item is `held` — an item's `charge`
   * lists only completed Charges. Empty when the seller does not implement Charges (`501`, MEF 123 CR3<O1).
   *
   * @throws {SourceError} as the class says.
   */
  async awaitedCharges(scope: SonataCallScope, sellerOrderId: string): Promise<string[]> {
    const what = `Charge list of Product Order ${sellerOrderId}`;
    const answer = await this.client.call(scope, {
      api: 'order',
      method: 'GET',
      path: '/charge',
      query: { productOrderId: sellerOrderId },
      expect: [200],
      tolerate: [501],
      what,
    });
    return answer.status === 501 ? [] : awaitedChargeIds(answer.body, sellerOrderId, what);
  }

  /**
   * Accepts or rejects a Charge as a whole: reads its items' ids, then `PATCH /charge/{id}` with every item's
   * `acceptanceIndicator` (`accepted` or `rejected`) at once (MEF 123 R94, R95). Only the ids are read
   * first, so a Charge whose amounts cannot be read can still be rejected.
   *
   * @returns the Charge as the seller answers the update (200).
   * @throws {SourceError} as the class says; `UPSTREAM_4XX` for a `409` (the Charge was answered, timed out
   *   or withdrawn).
   */
  async answerCharge(scope: SonataCallScope, chargeId: string, accept: boolean): Promise<SonataChargeView> {
    const path = `/charge${segment(chargeId)}`;
    const read = `Charge ${chargeId} retrieve`;
    const current = await this.client.call(scope, {
      api: 'order',
      method: 'GET',
      path,
      expect: [200],
      what: read,
    });
    const { chargeItem } = parseAnswer(chargeItemIdsSchema, current.body, read);
    if (chargeItem.length === 0) return parseSonataCharge(current.body, read);
    const what = `Charge ${chargeId} ${accept ? 'acceptance' : 'rejection'}`;
    const answer = await this.client.call(scope, {
      api: 'order',
      method: 'PATCH',
      path,
      body: {
        chargeItem: chargeItem.map((item) => ({
          id: item.id,
          acceptanceIndicator: accept ? 'accepted' : 'rejected',
        })),
      },
      expect: [200],
      what,
    });
    return parseSonataCharge(answer.body, what);
  }

  /**
   * A product in the seller's inventory (MEF 116 `GET /product/{id}`): what a completed order item made.
   *
   * @throws {SourceError} as the class says; `SONATA_NOT_FOUND` for an id the seller does not know.
   */
  async retrieveProduct(scope: SonataCallScope, productId: string): Promise<SonataProductView> {
    const what = `Product ${productId} retrieve`;
    const answer = await this.client.call(scope, {
      api: 'inventory',
      method: 'GET',
      path: `/product${segment(productId)}`,
      expect: [200],
      what,
    });
    return parseSonataProduct(answer.body, what);
  }

  /**
   * Registers one listener at the seller's order hub (`POST /hub`, MEF 123 `registerListener`) for every
   * order, item and Charge event ({@link ORDER_HUB_QUERY}; `chargeCreateEvent` is required, R103).
   *
   * @param callbackUrl the `callback`: the seller appends `/mefApi/sonata/productOrderingNotification/v10/
   *   listener/<eventType>` to it.
   * @param query the event types (default: all of them; `eventType=chargeCreateEvent` is the least R103 allows).
   * @returns the `EventSubscription.id`, or null when the seller sends no notifications (501, or 404/405).
   * @throws {SourceError} when the hub fails otherwise (after the policy's retries).
   */
  async registerListeners(
    scope: SonataCallScope,
    callbackUrl: string,
    query: string = ORDER_HUB_QUERY,
  ): Promise<string | null> {
    const what = 'Product Order hub listener registration';
    const answer = await this.client.call(scope, {
      api: 'order',
      method: 'POST',
      path: '/hub',
      body: { callback: callbackUrl, query },
      expect: [201],
      tolerate: NO_HUB,
      what,
    });
    return NO_HUB.includes(answer.status) ? null : parseAnswer(subscriptionSchema, answer.body, what).id;
  }

  /**
   * Deletes a listener (`DELETE /hub/{id}`, 204); a 404 or 501 counts as gone.
   *
   * @throws {SourceError} when the delete fails otherwise (after the policy's retries).
   */
  async unregisterListener(scope: SonataCallScope, listenerId: string): Promise<void> {
    await this.client.call(scope, {
      api: 'order',
      method: 'DELETE',
      path: `/hub${segment(listenerId)}`,
      expect: [204],
      tolerate: [404, 501],
      what: 'Product Order hub listener delete',
    });
  }
}
