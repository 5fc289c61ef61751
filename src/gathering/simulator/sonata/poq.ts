import { error422, type ItemProblem, type SellerAnswer, terminationError } from './errors.js';
import { itemProblems } from './item-rules.js';
import {
  calendarDays,
  type Lifecycle,
  later,
  type SellerContext,
  sellerContact,
  VALIDITY_MS,
} from './lifecycle.js';
import { matchingOffers, offersAtPlace } from './offerings.js';
import { installPlace, isProblem } from './place.js';
import { requestedBandwidth } from './product.js';
import { type ItemRecord, Progression } from './progression.js';
import type { PoqCreate, PoqCreateItem } from './requests.js';

/** The seller's verdict on one POQ item, decided when the POQ is created. */
type Verdict =
  | { kind: 'ready'; confidence: 'green' | 'red'; installationDays: number | null; reason: string }
  | { kind: 'terminated'; problem: ItemProblem };

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
  const progression = new Progression(
    options.now,
    requestItems,
    (request, index) => verdict(context, request, `/productOfferingQualificationItem/${index}`),
    { item: 'poqItemStateChangeEvent', whole: 'poqStateChangeEvent' },
    FINAL,
  );
  const finish = (now: Date) => {
    const deadline = body.requestedPOQCompletionDate ? Date.parse(body.requestedPOQCompletionDate) : null;
    const late = !instant && (options.unableToProvide || (deadline !== null && now.getTime() > deadline));
    return progression.end(
      now,
      (item) =>
        late ? 'done.abandoned' : item.verdict.kind === 'ready' ? 'done.ready' : 'terminatedWithError',
      (items) =>
        late
          ? 'done.unableToProvide'
          : items.some((item) => item.state === 'terminatedWithError')
            ? 'terminatedWithError'
            : 'done.ready',
    );
  };
  const itemView = (item: ItemRecord<PoqCreateItem, Verdict>): Record<string, unknown> => {
    const view = progression.itemView(item);
    if (item.state === 'done.ready' && item.verdict.kind === 'ready') {
      view.serviceabilityConfidence = item.verdict.confidence;
      view.serviceabilityConfidenceReason = item.verdict.reason;
      view.guaranteedUntilDate = later(new Date(progression.completedAt ?? options.now), VALIDITY_MS);
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
    complete: () => progression.complete(),
    view: () => ({
      ...common,
      relatedContactInformation: [...common.relatedContactInformation, sellerContact(context)],
      id: options.id,
      href: `${context.apiBase('poq')}/productOfferingQualification/${options.id}`,
      state: progression.state,
      stateChange: progression.stateChange,
      ...(progression.completedAt
        ? { effectiveQualificationDate: progression.completedAt }
        : { expectedPOQCompletionDate: later(options.now, 2 * context.stepMs) }),
      productOfferingQualificationItem: progression.items.map(itemView),
    }),
    advance: (now) => progression.advance(now, finish),
  };
  if (instant) finish(options.now);
  return { answer: { status: 201, body: lifecycle.view() }, lifecycle };
}
