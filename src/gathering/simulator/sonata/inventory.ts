import { createHash } from 'node:crypto';
import type { SellerContext } from './lifecycle.js';
import { INSTALL_ROLES } from './place.js';

type Json = Record<string, unknown>;

/** A product in a seller's inventory (MEF 116 `MEFProduct`), delivered by a completed order item. */
export interface InventoryProduct {
  id: string;
  /** `${sourceKey}/${mode}`: the seller that holds it. */
  sellerKey: string;
  /** The `buyerId` of the order that delivered it: only that buyer finds it. */
  buyerId: string | undefined;
  orderId: string;
  /** `GET /product/{id}`: `MEFProduct`. */
  view(): Json;
  /** `GET /product`: `MEFProduct_Find` (MEF 116 R13). */
  find(): Json;
}

/** What a completed order item hands over to the inventory. */
export interface Delivery {
  id: string;
  buyerId: string | undefined;
  order: { id: string; href: string; externalId: string | undefined };
  orderItemId: string;
  /** The item's `product` as the buyer ordered it (`productOffering`, `productConfiguration`, `place`). */
  product: Json;
  billingAccount: Json | undefined;
  /** The agreed term (`MEFItemTerm`), when known. */
  itemTerm: Json | undefined;
  /** The quote item's `quoteItemPrice` entries, when priced. */
  quotedPrices: Json[];
  /** When the item completed (ISO 8601): the product's `startDate`. */
  completedAt: string;
}

/**
 * The seller's site id for a place (MEF 116 `RelatedGeographicSite.id`): the sellers have no Geographic Site
 * API, so an install place becomes a stable id derived from its content (same place, same site).
 */
export function siteId(place: Json): string {
  return `site-${createHash('sha256').update(JSON.stringify(place)).digest('hex').slice(0, 16)}`;
}

/** The seller's contacts for an active product (MEF 116 R14: assurance, commercial, SLA management). */
function sellerContacts(context: SellerContext): Json[] {
  const contact = (role: string, desk: string) => ({
    role,
    name: `${context.network} ${desk}`,
    organization: context.network,
    emailAddress: `${desk.toLowerCase().replace(/\s+/g, '-')}@${context.sourceKey}.example`,
    number: '+31 20 000 0000',
  });
  return [
    contact('sellerAssuranceTechnicalContact', 'NOC'),
    contact('sellerCommercialContact', 'Account desk'),
    contact('sellerSlaManagementContact', 'Service desk'),
  ];
}

/**
 * The product a completed order item delivers, `active` from its completion (MEF 116 Table 4; MEF 123 R61
 * gives its id on the order item): the ordered `productOffering` and `productConfiguration`; the install
 * place as a `relatedSite` (MEF 116 `MEFProduct` has no place values, only site references); the
 * `productOrderItem` reference (`MEFProductOrderItemRef`); the order's `externalId`; the `billingAccount`,
 * the agreed term (`productTerm`) and the quoted prices (`productPrice`); the seller's contacts (R14).
 */
export function deliveredProduct(context: SellerContext, delivery: Delivery): InventoryProduct {
  const href = `${context.apiBase('inventory')}/product/${delivery.id}`;
  const places = (delivery.product.place ?? []) as Json[];
  const relatedSite = places.map((place) => ({
    id: siteId(place),
    role: INSTALL_ROLES.includes(String(place.role)) ? String(place.role) : 'INSTALL_LOCATION',
  }));
  const productOrderItem = [
    {
      productOrderId: delivery.order.id,
      productOrderItemId: delivery.orderItemId,
      productOrderHref: delivery.order.href,
    },
  ];
  const common = {
    id: delivery.id,
    href,
    status: 'active',
    startDate: delivery.completedAt,
    lastUpdateDate: delivery.completedAt,
    ...(delivery.order.externalId === undefined ? {} : { externalId: delivery.order.externalId }),
    productOffering: delivery.product.productOffering,
    ...(delivery.billingAccount === undefined ? {} : { billingAccount: delivery.billingAccount }),
    productOrderItem,
    ...(relatedSite.length > 0 ? { relatedSite } : {}),
  };
  const productPrice = delivery.quotedPrices.map((price) => ({
    ...(price.name === undefined ? {} : { name: price.name }),
    priceType: price.priceType,
    ...(price.recurringChargePeriod === undefined
      ? {}
      : { recurringChargePeriod: price.recurringChargePeriod }),
    price: price.price,
  }));
  return {
    id: delivery.id,
    sellerKey: `${context.sourceKey}/${context.mode}`,
    buyerId: delivery.buyerId,
    orderId: delivery.order.id,
    find: () => common,
    view: () => ({
      ...common,
      productConfiguration: delivery.product.productConfiguration,
      ...(delivery.itemTerm === undefined ? {} : { productTerm: [delivery.itemTerm] }),
      ...(productPrice.length > 0 ? { productPrice } : {}),
      relatedContactInformation: sellerContacts(context),
      statusChange: [{ changeDate: delivery.completedAt, status: 'active' }],
    }),
  };
}
