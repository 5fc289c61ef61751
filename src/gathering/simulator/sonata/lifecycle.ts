import type { CatalogFile } from '../../sources/catalog-file.js';
import type { SonataProductOffering } from './offerings.js';

/**
 * Which Sonata API: Product Offering Qualification (MEF 87), Quote (MEF 115), Product Order Management
 * (MEF 123) or Product Inventory (MEF 116).
 */
export type SonataApi = 'poq' | 'quote' | 'order' | 'inventory';

/** The APIs whose resources move through states and are notified about (Product Inventory is not). */
export type NotifyingApi = Exclude<SonataApi, 'inventory'>;

/**
 * How a simulated seller answers (docs/mef-sonata-mapping.md §5): `instant` answers instant requests at once
 * and deferred ones step by step; `deferred` refuses instant requests; `notify` is `deferred` that throttles
 * polling while the buyer has a listener; `sync-only` answers everything at once and offers no `/hub`.
 */
export type SonataSellerMode = 'instant' | 'deferred' | 'notify' | 'sync-only';

/** Every seller mode, as the base URL's mode segment spells it. */
export const sellerModes: readonly SonataSellerMode[] = ['instant', 'deferred', 'notify', 'sync-only'];

/**
 * One change to notify: the event type of the notification documents and, for an item, its id. `subject`
 * names another resource than the lifecycle itself (an order's Charge, `chargeCreateEvent`);
 * `milestoneName` is the milestone reached (`productSpecificProductOrderItemMilestoneEvent`, MEF 123 CR7).
 */
export interface LifecycleEvent {
  eventType: string;
  itemId?: string;
  subject?: { id: string; href: string };
  milestoneName?: string;
}

/** A POQ, Quote or Product Order the seller holds: its answer now, and its next deferred step. */
export interface Lifecycle {
  readonly api: NotifyingApi;
  readonly id: string;
  /** `${sourceKey}/${mode}`: the seller (base URL) that holds it. */
  readonly sellerKey: string;
  /** The `buyerId` / `sellerId` query of its creation (MEF 87 §5.1.3), undefined when absent. */
  readonly buyerId: string | undefined;
  readonly sellerId: string | undefined;
  /** Notifications sent about it since the buyer last read it (the throttle of `notify` sellers). */
  unread: number;
  /** Whether it reached a completion state (no further deferred steps). */
  complete(): boolean;
  /** Its representation for `GET …/{id}` (POQ `ProductOfferingQualification`, Quote `Quote`). */
  view(): Record<string, unknown>;
  /** Takes the next deferred step at `now`; the events of the changes, none when already complete. */
  advance(now: Date): LifecycleEvent[];
}

/** What a seller knows of itself when it answers. */
export interface SellerContext {
  sourceKey: string;
  mode: SonataSellerMode;
  catalog: CatalogFile;
  network: string;
  offerings: SonataProductOffering[];
  offeringPrefix: string;
  /** Milliseconds between deferred steps. */
  stepMs: number;
  /** Absolute base URL of the API (`…/mefApi/sonata/productOfferingQualification/v7`), for `href`. */
  apiBase(api: SonataApi): string;
}

/** `…StateChange` log entry (POQ `MEFPOQStateChange`, Quote `MEFQuoteStateChange`, item variants). */
export interface StateChange {
  changeDate: string;
  state: string;
}

/** The seller's contact, appended to the buyer's (MEF 87 R25/R26, MEF 115 R30). */
export function sellerContact(context: SellerContext): Record<string, string> {
  return {
    role: 'sellerContactInformation',
    name: `${context.network} Sonata desk`,
    organization: context.network,
    emailAddress: `sonata@${context.sourceKey}.example`,
    number: '+31 20 000 0000',
  };
}

/** `Duration` in calendar days (POQ `installationInterval`, Quote `quoteItemInstallationInterval`). */
export function calendarDays(amount: number): { amount: number; units: 'calendarDays' } {
  return { amount, units: 'calendarDays' };
}

/** `now + ms` as an ISO 8601 date-time. */
export function later(now: Date, ms: number): string {
  return new Date(now.getTime() + ms).toISOString();
}

/** How long a qualification is guaranteed and a quote is valid: 30 days. */
export const VALIDITY_MS = 30 * 24 * 3600 * 1000;
