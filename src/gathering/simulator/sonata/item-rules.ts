import type { ItemProblem } from './errors.js';
import type { SellerContext } from './lifecycle.js';
import { isProblem } from './place.js';
import { requestedBandwidth } from './product.js';
import type { PoqCreateItem } from './requests.js';

/**
 * Business rules of one POQ, Quote or Product Order item, answered `422` when broken (MEF 87 §6.1: product- and
 * envelope-related requirements; MEF 115 R42/R43): the action must be `add` (these sellers sell new
 * connections only), `product.productOffering.id` one of the seller's offerings (`referenceNotFound`),
 * `product.productConfiguration` a readable MEF 139 Basic Internet Access, and an install place present.
 * @param pointer RFC 6901 pointer of the item in the body, prefixed to each problem's `propertyPath`.
 */
export function itemProblems(
  context: SellerContext,
  item: { action: string; product?: PoqCreateItem['product'] },
  pointer: string,
): ItemProblem[] {
  if (item.action !== 'add') {
    return [
      {
        code: 'invalidValue',
        propertyPath: `${pointer}/action`,
        reason: 'This seller qualifies, quotes and orders new products (add) only.',
      },
    ];
  }
  const offering = item.product?.productOffering?.id;
  const problems: ItemProblem[] = [];
  if (offering === undefined) {
    problems.push({
      code: 'missingProperty',
      propertyPath: `${pointer}/product/productOffering`,
      reason: 'A productOffering is required to add a product.',
    });
  } else if (
    offering !== context.offeringPrefix &&
    !context.offerings.some((o) => o.productOfferingId === offering)
  ) {
    problems.push({
      code: 'referenceNotFound',
      propertyPath: `${pointer}/product/productOffering/id`,
      reason: `Unknown product offering ${offering}.`,
    });
  }
  const bandwidth = requestedBandwidth(
    item.product?.productConfiguration,
    `${pointer}/product/productConfiguration`,
  );
  if (isProblem(bandwidth)) problems.push(bandwidth);
  if (!item.product?.place?.length) {
    problems.push({
      code: 'missingProperty',
      propertyPath: `${pointer}/product/place`,
      reason: 'An install place is required.',
    });
  }
  return problems;
}
