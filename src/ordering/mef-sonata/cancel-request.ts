import type { SonataOrderContact } from './order-request.js';

/*
 * The body the buyer sends to cancel an order: MEF 123 Product Order Management 10.0.0
 * `CancelProductOrder_Create` (UC 8).
 */

/** The buyer's contact role a Cancel Product Order must carry (MEF 123 R74, MEF 57.2 R94). */
export const CANCEL_CONTACT_ROLE = 'cancelProductOrderContact';

/** MEF 123 `CancellationReasonType`. */
export const cancellationReasonTypes = ['technical', 'commercial'] as const;
/** Whether the reason to cancel is technical or commercial. */
export type CancellationReasonType = (typeof cancellationReasonTypes)[number];

/** A cancellation to send to a Sonata seller. */
export interface SonataCancellationToSend {
  /** The seller's id of the order to cancel (`productOrder.productOrderId`). */
  productOrderId: string;
  /** `cancellationReason`: free text for the seller; left out when blank. */
  reason: string;
  reasonType: CancellationReasonType;
  /** The `cancelProductOrderContact` (R74). */
  contact: SonataOrderContact;
}

/**
 * MEF 123 `CancelProductOrder_Create` for a cancellation: `productOrder.productOrderId` and one
 * `relatedContactInformation` with `role=cancelProductOrderContact` (both required by R74),
 * `cancellationReasonType` and the `cancellationReason` when not blank. `buyerId`/`sellerId` go in the query
 * (the client adds them).
 *
 * @param fallbackNumber the phone number sent when the contact has none (`RelatedContactInformation.number`
 *   is required): the source's buyer contact number.
 */
export function cancelProductOrderBody(
  cancellation: SonataCancellationToSend,
  fallbackNumber: string,
): Record<string, unknown> {
  const { contact } = cancellation;
  const reason = cancellation.reason.trim();
  return {
    productOrder: { productOrderId: cancellation.productOrderId },
    cancellationReasonType: cancellation.reasonType,
    ...(reason === '' ? {} : { cancellationReason: reason }),
    relatedContactInformation: [
      {
        role: CANCEL_CONTACT_ROLE,
        name: contact.name,
        emailAddress: contact.emailAddress,
        number: contact.number ?? fallbackNumber,
      },
    ],
  };
}
