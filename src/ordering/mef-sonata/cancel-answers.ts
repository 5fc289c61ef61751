import { z } from 'zod';
import { parseAnswer } from '../../gathering/sources/mef-sonata/answers.js';

/*
 * The parts of a Sonata seller's Cancel Product Order answers the buyer reads: MEF 123 Product Order
 * Management 10.0.0 `CancelProductOrder` and `CancelProductOrder_Find`. Only what the view carries is
 * checked; everything else is ignored, as the document allows sellers to add.
 */

const id = z.string().min(1).max(200);

/** MEF 123 `MEFChargeableTaskStateType`: the states of a Cancel Product Order (MEF 123 Table 13). */
export const cancellationStates = [
  'acknowledged',
  'done',
  'done.declined',
  'inProgress.assessingCharge',
  'rejected',
] as const;
/** A Cancel Product Order's state. */
export type SonataCancellationState = (typeof cancellationStates)[number];

/** MEF 123 `CancelProductOrder` (the parts {@link SonataCancellationView} carries). */
const cancellationSchema = z.looseObject({
  id,
  state: z.enum(cancellationStates),
  productOrder: z.looseObject({ productOrderId: id }),
  cancellationDeniedReason: z.string().max(2000).optional(),
  charge: z.looseObject({ id }).optional(),
});

/** MEF 123 `CancelProductOrder_Find`: one entry of `GET /cancelProductOrder`. */
const cancellationFindSchema = z.looseObject({
  id,
  state: z.enum(cancellationStates),
  productOrder: z.looseObject({ productOrderId: id }),
});
/** One parsed `CancelProductOrder_Find`. */
export type CancellationFound = z.infer<typeof cancellationFindSchema>;

/** A Cancel Product Order as the buyer follows it (MEF 123 `CancelProductOrder`). */
export interface SonataCancellationView {
  /** `id`: the seller's id of the Cancel Product Order. */
  id: string;
  /** `productOrder.productOrderId`: the order it cancels. */
  productOrderId: string;
  /**
   * `state`, verbatim: `acknowledged` (being assessed), `inProgress.assessingCharge` (a cancellation Charge
   * awaits the buyer), `done` (the order is being cancelled: `pendingCancellation`, then `cancelled`),
   * `done.declined` (refused after assessment, or its Charge declined: the order goes on) or `rejected`
   * (refused at once: the order goes on).
   */
  state: SonataCancellationState;
  /** `cancellationDeniedReason`: why the seller refused it; null when it gave none. */
  deniedReason: string | null;
  /** `charge.id`: the cancellation Charge (read and answered as any Charge); null when there is none. */
  chargeId: string | null;
}

/**
 * A seller's `CancelProductOrder` (create answer or retrieve) as a {@link SonataCancellationView}.
 *
 * @param what what was asked, for the message ("Cancel Product Order create").
 * @throws {SourceError} `INVALID_RESPONSE` naming the first place it breaks the document's shape.
 */
export function parseSonataCancellation(body: unknown, what: string): SonataCancellationView {
  const cancellation = parseAnswer(cancellationSchema, body, what);
  return {
    id: cancellation.id,
    productOrderId: cancellation.productOrder.productOrderId,
    state: cancellation.state,
    deniedReason: cancellation.cancellationDeniedReason ?? null,
    chargeId: cancellation.charge?.id ?? null,
  };
}

/**
 * The `CancelProductOrder_Find` list of `GET /cancelProductOrder`.
 *
 * @throws {SourceError} `INVALID_RESPONSE` when it is not an array of them.
 */
export function parseSonataCancellationList(body: unknown, what: string): CancellationFound[] {
  return parseAnswer(z.array(cancellationFindSchema).max(1000), body, what);
}
