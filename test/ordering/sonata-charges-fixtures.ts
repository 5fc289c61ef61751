import { expect } from 'vitest';
import type { SonataSeller } from '../../src/gathering/simulator/sonata/server.js';
import type { Json } from '../helpers/app.js';

/* What the tests of a seller's charges share: the charge as the seller showed it, and the answers it got. */

/** The charge as the seller last showed it to the gateway (`GET /charge/{id}`). */
export function sellerCharge(seller: SonataSeller, chargeId: string): Json {
  const read = seller.exchanges.filter(
    (exchange) =>
      exchange.method === 'GET' && exchange.status === 200 && exchange.path.endsWith(`/charge/${chargeId}`),
  );
  expect(read.length, `the seller showed charge ${chargeId}`).toBeGreaterThan(0);
  return read.at(-1)?.responseBody;
}

/** The answers (`PATCH /charge/{id}`) the seller received for one charge, as `[status, body]`. */
export const answersTo = (seller: SonataSeller, chargeId: string): [number, unknown][] =>
  seller.exchanges
    .filter((exchange) => exchange.method === 'PATCH' && exchange.path.endsWith(`/charge/${chargeId}`))
    .map((exchange) => [exchange.status, exchange.requestBody]);
