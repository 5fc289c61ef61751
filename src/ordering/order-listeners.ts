import type { SonataCallScope, SonataClient } from '../gathering/sources/mef-sonata/client.js';
import {
  deleteHubListeners,
  hubFingerprint,
  type SonataHubRegistrations,
} from '../gathering/sources/mef-sonata/hub.js';
import type { SonataNotificationInbox } from '../gathering/sources/mef-sonata/inbox.js';
import { ORDER_HUB_QUERY } from './mef-sonata/order-events.js';
import type { SonataOrdering } from './mef-sonata/ordering-client.js';

/** The least a buyer registers for at a seller's order hub (MEF 123 R103). */
export const CHARGE_CREATE_QUERY = 'eventType=chargeCreateEvent';

/**
 * A source's listener at its seller's Product Order hub (MEF 123 `POST /hub`), registered once per source,
 * settings and event types, and kept with the source's POQ and Quote listeners (`sources.hub_listeners`), so a
 * restart does not register again and disabling the source or changing its settings deletes it at the
 * seller (`deleteHubListeners`). A source in the `notifications` mode listens to every order, item and
 * Charge event; the others only to `chargeCreateEvent` (R103). Without `PUBLIC_BASE_URL` (no inbox) no
 * seller could call back, and nothing is registered.
 */
export class OrderListeners {
  private readonly inFlight = new Map<string, Promise<string | null>>();

  constructor(
    private readonly ordering: SonataOrdering,
    private readonly client: SonataClient,
    private readonly inbox: SonataNotificationInbox | null,
    private readonly registrations: SonataHubRegistrations,
  ) {}

  /**
   * The source's order listener id, registering it first when the kept one was made for other settings or
   * event types; null when the seller sends no notifications or no callback URL is configured.
   *
   * @throws {SourceError} when the hub fails otherwise (after the policy's retries).
   */
  ensure(scope: SonataCallScope): Promise<string | null> {
    if (!this.inbox) return Promise.resolve(null);
    const key = scope.source.id;
    let registering = this.inFlight.get(key);
    if (!registering) {
      registering = this.register(scope, this.inbox).finally(() => this.inFlight.delete(key));
      this.inFlight.set(key, registering);
    }
    return registering;
  }

  private async register(scope: SonataCallScope, inbox: SonataNotificationInbox): Promise<string | null> {
    const { source, settings } = scope;
    inbox.describeSource(source.id, { buyerId: settings.buyerId, sellerId: settings.sellerId });
    const callback = inbox.callbackUrl(source.id);
    const fingerprint = hubFingerprint(settings, callback);
    const query = settings.interaction === 'notifications' ? ORDER_HUB_QUERY : CHARGE_CREATE_QUERY;
    let kept = await this.registrations.get(source.id);
    if (kept && kept.fingerprint !== fingerprint) {
      await deleteHubListeners(this.client, this.registrations, scope);
      kept = null;
    }
    if (kept?.order !== undefined && kept.orderQuery === query) return kept.order;
    if (kept?.order) await this.ordering.unregisterListener(scope, kept.order);
    const id = await this.ordering.registerListeners(scope, callback, query);
    await this.registrations.set(source.id, {
      ...(kept ?? { fingerprint, poq: null, quote: null, gatheringListeners: false }),
      order: id,
      orderQuery: query,
    });
    return id;
  }
}
