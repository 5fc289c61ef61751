import { error422, type ItemProblem, type SellerAnswer, terminationError } from './errors.js';
import { itemProblems } from './item-rules.js';
import {
  calendarDays,
  type Lifecycle,
  type LifecycleEvent,
  later,
  type SellerContext,
  type StateChange,
  sellerContact,
  VALIDITY_MS,
} from './lifecycle.js';
import { matchingOffers, offersAtPlace } from './offerings.js';
import { installPlace, isProblem } from './place.js';
import { requestedBandwidth } from './product.js';
import type { PoqCreate, PoqCreateItem } from './requests.js';

/** The seller's verdict on one POQ item, decided when the POQ is created. */
type Verdict =
  | { kind: 'ready'; confidence: 'green' | 'red'; installationDays: number | null; reason: string }
  | { kind: 'terminated'; problem: ItemProblem };

interface ItemRecord {
  request: PoqCreateItem;
  verdict: Verdict;
  state: string;
  stateChange: StateChange[];
}

const FINAL = ['done.ready', 'done.unableToProvide', 'terminatedWithError'];

/** Business rules of a POQ request (MEF 87 §6.1, §6.3.1 R19, R32): a `422` list, empty when it passes. */
function businessProblems(context: SellerContext, body: PoqCreate, instant: boolean): ItemProblem[] {
  const problems: ItemProblem[] = [];
  if (body.instantSyncQualification && (context.mode === 'deferred' || context.mode === 'notify')) {
    problems.push({
      code: 'invalidValue',
      propertyPath: '/instantSyncQualification',
      reason: 'This seller answers deferred only: send instantSyncQualification false.',
    });
  }
  if (!instant && body.requestedPOQCompletionDate === undefined) {
    problems.push({
      code: 'missingProperty',
      propertyPath: '/requestedPOQCompletionDate',
      reason: 'requestedPOQCompletionDate is required when instantSyncQualification is false.',
    });
  }
  body.productOfferingQualificationItem.forEach((item, index) => {
    const pointer = `/productOfferingQualificationItem/${index}`;
    problems.push(...itemProblems(context, item, pointer));
  });
  return problems;
}

function verdict(context: SellerContext, item: PoqCreateItem, pointer: string): Verdict {
  const place = installPlace(item.product.place, `${pointer}/product`);
  if (isProblem(place)) return { kind: 'terminated', problem: place };
  const bandwidth = requestedBandwidth(
    item.product.productConfiguration,
    `${pointer}/product/productConfiguration`,
  );
  if (isProblem(bandwidth)) return { kind: 'terminated', problem: bandwidth };
  const offers =
    matchingOffers(
      context.offerings,
      context.offeringPrefix,
      offersAtPlace(context.catalog, context.sourceKey, place),
      {
        productOfferingId: item.product.productOffering?.id ?? '',
        ...bandwidth,
      },
    ) ?? [];
  if (offers.length === 0) {
    return {
      kind: 'ready',
      confidence: 'red',
      installationDays: null,
      reason: 'Not deliverable as specified at this place.',
    };
  }
  const installationDays = Math.min(...offers.map((offer) => offer.lead_time_days ?? 30));
  return {
    kind: 'ready',
    confidence: 'green',
    installationDays,
    reason: 'Deliverable on the seller’s network.',
  };
}

/**
 * Creates a POQ (POQ 7.0.1 `createProductOfferingQualification`). Answers `422` (a list of `Error422`) when
 * business rules fail, else `201` with the POQ: complete at once (`done.ready` or `terminatedWithError`, MEF 87
 * R24) when the seller answers instantly — `instantSyncQualification` true, or any request to a `sync-only`
 * seller (R16) — else `acknowledged`, progressed by {@link Lifecycle.advance}. An item is `done.ready` with
 * `serviceabilityConfidence` `green` when the catalogue holds a matching offer at the place, `red` when not;
 * `terminatedWithError` when the place cannot be read. A deferred POQ ends `done.unableToProvide` (items
 * `done.abandoned`) when its `requestedPOQCompletionDate` has passed at the last step, or when `unableToProvide`.
 */
export function createPoq(
  context: SellerContext,
  body: PoqCreate,
  options: { id: string; buyerId?: string; sellerId?: string; unableToProvide: boolean; now: Date },
): { answer: SellerAnswer; lifecycle?: Lifecycle } {
  const instant = context.mode === 'sync-only' || body.instantSyncQualification === true;
  const problems = businessProblems(context, body, instant);
  if (problems.length > 0) return { answer: error422(problems) };
  const { productOfferingQualificationItem: requestItems, ...common } = body;
  const created = options.now.toISOString();
  let state = 'acknowledged';
  const stateChange: StateChange[] = [{ changeDate: created, state }];
  let completedAt: string | undefined;
  const items: ItemRecord[] = requestItems.map((request, index) => ({
    request,
    verdict: verdict(context, request, `/productOfferingQualificationItem/${index}`),
    state: 'acknowledged',
    stateChange: [{ changeDate: created, state: 'acknowledged' }],
  }));
  const moveItem = (item: ItemRecord, next: string, at: string, events: LifecycleEvent[]) => {
    item.state = next;
    item.stateChange.push({ changeDate: at, state: next });
    events.push({ eventType: 'poqItemStateChangeEvent', itemId: item.request.id });
  };
  const finish = (now: Date, events: LifecycleEvent[]) => {
    const at = now.toISOString();
    const deadline = body.requestedPOQCompletionDate ? Date.parse(body.requestedPOQCompletionDate) : null;
    const late = !instant && (options.unableToProvide || (deadline !== null && now.getTime() > deadline));
    for (const item of items) {
      moveItem(
        item,
        late ? 'done.abandoned' : item.verdict.kind === 'ready' ? 'done.ready' : 'terminatedWithError',
        at,
        events,
      );
    }
    state = late
      ? 'done.unableToProvide'
      : items.some((item) => item.state === 'terminatedWithError')
        ? 'terminatedWithError'
        : 'done.ready';
    stateChange.push({ changeDate: at, state });
    completedAt = at;
    events.push({ eventType: 'poqStateChangeEvent' });
  };
  const itemView = (item: ItemRecord): Record<string, unknown> => {
    const view: Record<string, unknown> = {
      ...item.request,
      state: item.state,
      stateChange: item.stateChange,
    };
    if (item.state === 'done.ready' && item.verdict.kind === 'ready') {
      view.serviceabilityConfidence = item.verdict.confidence;
      view.serviceabilityConfidenceReason = item.verdict.reason;
      view.guaranteedUntilDate = later(new Date(completedAt ?? created), VALIDITY_MS);
      if (item.verdict.installationDays !== null)
        view.installationInterval = calendarDays(item.verdict.installationDays);
    }
    if (item.state === 'terminatedWithError' && item.verdict.kind === 'terminated') {
      view.terminationError = [terminationError(item.verdict.problem)];
    }
    return view;
  };
  const lifecycle: Lifecycle = {
    api: 'poq',
    id: options.id,
    sellerKey: `${context.sourceKey}/${context.mode}`,
    buyerId: options.buyerId,
    sellerId: options.sellerId,
    unread: 0,
    complete: () => FINAL.includes(state),
    view: () => ({
      ...common,
      relatedContactInformation: [...common.relatedContactInformation, sellerContact(context)],
      id: options.id,
      href: `${context.apiBase('poq')}/productOfferingQualification/${options.id}`,
      state,
      stateChange,
      ...(completedAt
        ? { effectiveQualificationDate: completedAt }
        : { expectedPOQCompletionDate: later(options.now, 2 * context.stepMs) }),
      productOfferingQualificationItem: items.map(itemView),
    }),
    advance(now) {
      const events: LifecycleEvent[] = [];
      if (state === 'acknowledged') {
        for (const item of items) moveItem(item, 'inProgress', now.toISOString(), events);
        state = 'inProgress';
        stateChange.push({ changeDate: now.toISOString(), state });
        events.push({ eventType: 'poqStateChangeEvent' });
      } else if (state === 'inProgress') {
        finish(now, events);
      }
      return events;
    },
  };
  if (instant) finish(options.now, []);
  return { answer: { status: 201, body: lifecycle.view() }, lifecycle };
}
