import { z } from 'zod';
import { action, contact, dateTime, itemTerm, product } from './requests.js';

/*
 * What the seller checks of Product Order Management 10.0.0 bodies before any business rule: the required
 * fields and types of `ProductOrder_Create` and `MEFProductOrderCharge_Update`. Objects stay loose, as in the
 * document, so everything the buyer sent is echoed back (MEF 123 R16). A failure is answered `400` `Error400`
 * `invalidBody`.
 */

/** `MEFProductRefOrValueOrder`: the product part, plus the `id` a buyer must not send when adding (R36). */
const orderProduct = product.extend({ id: z.string().optional() });

/** Product Order 10.0.0 `MEFProductOrderItem_Create`. */
const orderItemCreate = z.looseObject({
  id: z.string(),
  action,
  product: orderProduct.optional(),
  billingAccount: z.looseObject({ id: z.string() }).optional(),
  requestedItemTerm: itemTerm.optional(),
  requestedCompletionDate: dateTime.optional(),
  relatedContactInformation: z.array(contact).optional(),
  expediteIndicator: z.boolean().optional(),
  quoteItem: z.looseObject({ id: z.string(), quoteId: z.string() }).optional(),
  productOfferingQualificationItem: z
    .looseObject({ id: z.string(), productOfferingQualificationId: z.string() })
    .optional(),
});

/** Product Order 10.0.0 `ProductOrder_Create`. */
export const productOrderCreateSchema = z.looseObject({
  externalId: z.string().optional(),
  projectId: z.string().optional(),
  relatedContactInformation: z.array(contact).min(1),
  productOrderItem: z.array(orderItemCreate).min(1),
});
/** A parsed Product Order create body (unknown fields kept). */
export type ProductOrderCreate = z.infer<typeof productOrderCreateSchema>;
/** One parsed Product Order item. */
export type ProductOrderCreateItem = ProductOrderCreate['productOrderItem'][number];

/** Product Order 10.0.0 `MEFProductOrderCharge_Update`: the buyer's answer to each Charge Item (UC 12). */
export const chargeUpdateSchema = z.looseObject({
  chargeItem: z
    .array(
      z.looseObject({
        id: z.string(),
        acceptanceIndicator: z.enum(['accepted', 'rejected']),
        note: z.array(z.looseObject({})).optional(),
      }),
    )
    .min(1),
});
/** A parsed Charge answer. */
export type ChargeUpdate = z.infer<typeof chargeUpdateSchema>;

/** Product Order 10.0.0 `CancelProductOrder_Create`: the buyer's request to cancel an order (UC 8). */
export const cancelProductOrderCreateSchema = z.looseObject({
  cancellationReason: z.string().optional(),
  cancellationReasonType: z.enum(['technical', 'commercial']).optional(),
  productOrder: z.looseObject({ productOrderId: z.string(), productOrderHref: z.string().optional() }),
  relatedContactInformation: z.array(contact).min(1),
});
/** A parsed Cancel Product Order request (unknown fields kept, echoed back by R75). */
export type CancelProductOrderCreate = z.infer<typeof cancelProductOrderCreateSchema>;
