import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OrderCharge, OrderMilestone } from '../../src/db/rows.js';
import { type Json, startTestServer, type TestServer, type TestTenant } from '../helpers/app.js';
import { updateStoredRows } from '../helpers/store.js';
import { manualQuote } from './orders-fixtures.js';

/*
 * Issue 35, item 7: "Dates are ISO 8601 timestamps with UTC offset, like `created_at`." A line keeps a
 * charge's `responseDueDate` and a milestone's `date` as the seller wrote them; REST shows them in
 * `created_at`'s form (UTC, `+00:00`, to the second) and GraphQL as `DateTime`s. A stored value that is no
 * date-time (a seller's answers are checked when read, so only a row written otherwise) shows as null.
 */

const milestones: OrderMilestone[] = [
  { name: 'siteSurveyCompleted', date: '2026-12-01T10:00:00.700Z', description: 'Survey done' },
  { name: 'installationScheduled', date: '2026-12-03T09:30:00+02:00', description: null },
  { name: 'handedOver', date: 'next Tuesday', description: null },
];

const charge = (id: string, responseDueDate: string | null): OrderCharge => ({
  id,
  state: 'awaitingResponse',
  responseDueDate,
  items: [
    {
      id: `${id}-1`,
      priceType: 'nonRecurring',
      priceCategory: 'construction',
      amountMinor: 75_000,
      currency: 'EUR',
      blocking: true,
      state: 'awaitingResponse',
    },
  ],
});

const charges = [
  charge('chg-z', '2026-12-02T23:59:59.999Z'),
  charge('chg-offset', '2026-12-02T08:15:00-05:00'),
  charge('chg-none', null),
  charge('chg-bad', '2026-13-45'),
];

const READ = `query ($id: ID!) { order(id: $id) { lines {
  milestones { name date description } charges { id responseDueDate }
} } }`;

describe('the dates a seller gave, on an order line', () => {
  let server: TestServer;
  let tenant: TestTenant;
  let order: Json;

  beforeAll(async () => {
    server = await startTestServer();
    tenant = await server.tenant({ code: 'OSD', roles: ['connectivity_check', 'ordering'] });
    const quote = await manualQuote(tenant);
    order = (await tenant.api.post('/orders', { quote_id: quote.id })).body.data;
    // A state only a seller's answers make: written straight into the line's row.
    await updateStoredRows(
      server.app.services.db,
      'orderLines',
      { milestones, charges },
      { id: order.lines[0].id },
    );
  });
  afterAll(() => server.close());

  it('when the order is read over REST, then each date is in created_at’s form, and null when it is none', async () => {
    const read = await tenant.api.get(`/orders/${order.id}`);
    expect(read.status).toBe(200);
    const [line] = read.body.data.lines;
    expect(line.milestones).toEqual([
      { name: 'siteSurveyCompleted', date: '2026-12-01T10:00:00+00:00', description: 'Survey done' },
      { name: 'installationScheduled', date: '2026-12-03T07:30:00+00:00', description: null },
      { name: 'handedOver', date: null, description: null },
    ]);
    expect(line.charges.map((each: Json) => [each.id, each.response_due_date])).toEqual([
      ['chg-z', '2026-12-02T23:59:59+00:00'],
      ['chg-offset', '2026-12-02T13:15:00+00:00'],
      ['chg-none', null],
      ['chg-bad', null],
    ]);
    expect(line.charges[0]).toEqual({
      id: 'chg-z',
      state: 'awaitingResponse',
      response_due_date: '2026-12-02T23:59:59+00:00',
      items: [
        {
          id: 'chg-z-1',
          price_type: 'nonRecurring',
          price_category: 'construction',
          amount: 750,
          currency: 'EUR',
          blocking: true,
          state: 'awaitingResponse',
        },
      ],
    });
  });

  it('when the order is read over GraphQL, then each date is a DateTime, and null when it is none', async () => {
    const read = await tenant.api.graphql(READ, { id: order.id });
    expect(read.errors).toBeUndefined();
    expect(read.data.order.lines[0]).toEqual({
      milestones: [
        { name: 'siteSurveyCompleted', date: '2026-12-01T10:00:00.700Z', description: 'Survey done' },
        { name: 'installationScheduled', date: '2026-12-03T07:30:00.000Z', description: null },
        { name: 'handedOver', date: null, description: null },
      ],
      charges: [
        { id: 'chg-z', responseDueDate: '2026-12-02T23:59:59.999Z' },
        { id: 'chg-offset', responseDueDate: '2026-12-02T13:15:00.000Z' },
        { id: 'chg-none', responseDueDate: null },
        { id: 'chg-bad', responseDueDate: null },
      ],
    });
    expect(read.data.order.lines[1]).toEqual({ milestones: [], charges: [] });
  });
});
