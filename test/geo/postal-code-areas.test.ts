import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { distanceKm } from '../../src/geo/coordinates.js';
import { createOfflineGeocoder, geocodeCity, postalCodeAreaCentre } from '../../src/geo/index.js';

/** The vendored file itself, read independently of the module under test. */
const vendored = JSON.parse(
  readFileSync(new URL('../../data/geo/nl-pc4/pc4geoloc.json', import.meta.url), 'utf8'),
) as Record<string, [number, number]>;

const address = {
  countryCode: 'NL',
  postalCode: '1016XA',
  houseNumber: '1',
  houseNumberAddition: '',
  street: '',
  city: '',
};

describe('postalCodeAreaCentre', () => {
  it('when a Dutch postal code’s PC4 is in the data, then its centre is answered exactly as vendored', () => {
    expect(postalCodeAreaCentre('NL', '1016XA')).toEqual({
      latitude: 52.37085601362856,
      longitude: 4.881551016519783,
    });
    expect(postalCodeAreaCentre('NL', '9999AB')).toEqual({
      latitude: 53.36056496038095,
      longitude: 6.598130251762571,
    });
  });

  it('when every vendored area is asked, then each answers its own centre', () => {
    const codes = Object.keys(vendored);

    expect(codes).toHaveLength(4073);
    for (const code of codes) {
      const [latitude, longitude] = vendored[code] as [number, number];
      expect(postalCodeAreaCentre('NL', `${code}AA`)).toEqual({ latitude, longitude });
    }
  });

  it('when the PC4 is well-formed but unknown, not in the normalised form, or not Dutch, then null', () => {
    expect(vendored['1000']).toBeUndefined();
    expect(postalCodeAreaCentre('NL', '1000AA')).toBeNull();
    expect(postalCodeAreaCentre('NL', '1016 XA')).toBeNull();
    expect(postalCodeAreaCentre('NL', '1016')).toBeNull();
    expect(postalCodeAreaCentre('NL', '0999AA')).toBeNull();
    expect(postalCodeAreaCentre('NL', '')).toBeNull();
    expect(postalCodeAreaCentre('BE', '1016XA')).toBeNull();
    expect(postalCodeAreaCentre('DE', '10115')).toBeNull();
  });
});

describe('the offline geocoder', () => {
  const geocoder = createOfflineGeocoder();
  const amsterdam = geocodeCity('NL', 'Amsterdam');

  it('when a Dutch address has a known postal code, then it is placed at its PC4 centre, names left as given', async () => {
    const located = await geocoder.locate(address);

    expect(located).toEqual({
      coordinates: { latitude: 52.37085601362856, longitude: 4.881551016519783 },
      precision: 'postal_code_area',
      city: null,
      street: null,
    });
  });

  it('when the address also names a city, then the PC4 centre still wins: it is the closer one', async () => {
    const located = await geocoder.locate({ ...address, postalCode: '1102AB', city: 'Amsterdam' });

    const zuidoost = postalCodeAreaCentre('NL', '1102AB');
    expect(located).toEqual({
      coordinates: zuidoost,
      precision: 'postal_code_area',
      city: null,
      street: null,
    });
    if (!zuidoost || !amsterdam) throw new Error('the PC4 data or GeoNames lost Amsterdam');
    // 1102 is Amsterdam-Zuidoost, kilometres from the city's GeoNames point.
    expect(distanceKm(zuidoost, amsterdam.coordinates)).toBeGreaterThan(5);
  });

  it('when the PC4 is unknown, then the city’s centre is used if the city is known, else nothing is invented', async () => {
    const withCity = await geocoder.locate({ ...address, postalCode: '1000AA', city: 'Amsterdam' });
    const withoutCity = await geocoder.locate({ ...address, postalCode: '1000AA' });

    expect(withCity).toEqual({
      coordinates: amsterdam?.coordinates,
      precision: 'city',
      city: null,
      street: null,
    });
    expect(withoutCity).toBeNull();
  });

  it('when the address is not Dutch, then only its city places it', async () => {
    const london = await geocoder.locate({
      ...address,
      countryCode: 'GB',
      postalCode: 'SW1A 1AA',
      city: 'London',
    });
    const unnamed = await geocoder.locate({ ...address, countryCode: 'BE', postalCode: '1000' });

    expect(london).toEqual({
      coordinates: geocodeCity('GB', 'London')?.coordinates,
      precision: 'city',
      city: null,
      street: null,
    });
    expect(unnamed).toBeNull();
  });
});
