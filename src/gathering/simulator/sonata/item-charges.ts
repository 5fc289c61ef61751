/** The values of the simulated seller's `item_charges=` knob (knobs.ts). */
export const itemChargesValues = ['all', 'accepted'] as const;

/**
 * Which Charges an order item's `charge` references: `all` (the default, every Charge of the item) or
 * `accepted` (only completed Charges with accepted items, as MEF 123 says, so an awaited Charge is found only
 * through `GET /charge` or a notification).
 */
export type ItemCharges = (typeof itemChargesValues)[number];
