import { describe, expect, test } from 'vitest';
import {
  instantSellerPerTest,
  type Json,
  LIJNBAANSGRACHT,
  poqBody,
  quoteBody,
  tele2Candidates,
} from './sonata-instant-fixtures.js';

/* Where an instant seller delivers: an address outside its coverage, and a place given as a point. */

const { call } = instantSellerPerTest();

describe('an instant Sonata seller', () => {
  test('when the address is outside the coverage, then items are done.ready red and quotes unableToProvide', async () => {
    const winterswijk = {
      ...LIJNBAANSGRACHT,
      streetName: 'Markt',
      streetNr: '1',
      postcode: '7101BA',
      city: 'Winterswijk',
    };
    const candidates = tele2Candidates();
    const poq = await call(
      'tele2',
      'instant',
      'poq',
      'POST',
      '/productOfferingQualification',
      poqBody(candidates, winterswijk, true),
    );
    const items = poq.body.productOfferingQualificationItem as Record<string, unknown>[];
    expect(poq.body.state).toBe('done.ready');
    expect(items.map((item) => item.serviceabilityConfidence)).toEqual(['green', 'red', 'red', 'red', 'red']);
    expect(items[1]).not.toHaveProperty('installationInterval');

    const quote = await call(
      'tele2',
      'instant',
      'quote',
      'POST',
      '/quote',
      quoteBody(candidates.slice(2, 3), winterswijk, 36, true),
    );
    expect(quote.body.state).toBe('unableToProvide');
    expect((quote.body.quoteItem as Json[])[0]).toMatchObject({
      state: 'unableToProvide',
      terminationError: [
        {
          code: 'invalidValue',
          propertyPath: '/quoteItem/0/product',
          value: 'Not deliverable as specified at this place.',
        },
      ],
    });
  });

  test('when a coordinate-only place is sent as an MEFGeographicPoint, then it is placed in its city', async () => {
    const point = {
      '@type': 'MEFGeographicPoint',
      role: 'INSTALL_LOCATION',
      spatialRef: 'EPSG:4326 WGS 84',
      x: '52.3728',
      y: '4.8936',
    };
    const poq = await call(
      'tele2',
      'instant',
      'poq',
      'POST',
      '/productOfferingQualification',
      poqBody(tele2Candidates(), point, true),
    );
    const items = poq.body.productOfferingQualificationItem as Record<string, unknown>[];
    expect(items.map((item) => item.serviceabilityConfidence)).toEqual([
      'green',
      'green',
      'green',
      'green',
      'green',
    ]);
  });
});
