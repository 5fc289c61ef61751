import { beforeAll, describe, expect, it } from 'vitest';
import { CITY_ALIASES } from '../../src/geo/city-aliases.js';
import { loadCities } from '../../src/geo/city-data.js';
import { type Coordinates, geocodeCity, reverseGeocode, warmUpGeocoder } from '../../src/geo/geocoder.js';
import { placeNameKey } from '../../src/geo/place-name.js';

const TOLERANCE_DEGREES = 0.05;

function expectNear(actual: Coordinates | undefined, latitude: number, longitude: number): void {
  expect(actual).toBeDefined();
  expect(Math.abs((actual?.latitude ?? Number.NaN) - latitude)).toBeLessThan(TOLERANCE_DEGREES);
  expect(Math.abs((actual?.longitude ?? Number.NaN) - longitude)).toBeLessThan(TOLERANCE_DEGREES);
}

beforeAll(() => {
  warmUpGeocoder();
});

describe('geocodeCity', () => {
  it('finds Amsterdam, NL at its centre, at city precision', () => {
    const match = geocodeCity('NL', 'Amsterdam');
    expect(match).toMatchObject({ city: 'Amsterdam', countryCode: 'NL', precision: 'city' });
    expectNear(match?.coordinates, 52.37, 4.89);
  });

  it('ignores case, diacritics and punctuation', () => {
    expect(geocodeCity('NL', '  amsterdam ')?.city).toBe('Amsterdam');
    expect(geocodeCity('NL', 's Hertogenbosch')?.city).toBe("'s-Hertogenbosch");
    expect(geocodeCity('DE', 'koln')?.city).toBe('Köln');
    expect(geocodeCity('CH', 'ZURICH')?.city).toBe('Zürich');
  });

  it('knows common other names of big cities', () => {
    for (const name of ['Den Haag', 'The Hague', "'s-Gravenhage", 'den haag']) {
      const match = geocodeCity('NL', name);
      expect(match?.city, name).toBe('The Hague');
      expectNear(match?.coordinates, 52.08, 4.3);
    }
    expect(geocodeCity('DE', 'München')?.city).toBe('Munich');
    expect(geocodeCity('BE', 'Bruxelles')?.city).toBe('Brussels');
  });

  it('picks the most populous place of a name within the country', () => {
    const london = geocodeCity('GB', 'London');
    expect(london?.city).toBe('London');
    expectNear(london?.coordinates, 51.51, -0.13);
    // Amsterdam, NY exists too, but the country decides.
    expectNear(geocodeCity('US', 'Amsterdam')?.coordinates, 42.94, -74.19);
  });

  it('answers null for unknown cities, wrong countries and empty names', () => {
    expect(geocodeCity('NL', 'Atlantis')).toBeNull();
    expect(geocodeCity('BE', 'Amsterdam')).toBeNull();
    expect(geocodeCity('XX', 'Amsterdam')).toBeNull();
    expect(geocodeCity('NL', '')).toBeNull();
    expect(geocodeCity('NL', ' -- ')).toBeNull();
  });

  it('has an indexed target for every alias', () => {
    const names = new Set(loadCities().map((city) => `${city.country}:${placeNameKey(city.name)}`));
    const missing = CITY_ALIASES.filter(
      ([country, , target]) => !names.has(`${country}:${placeNameKey(target)}`),
    );
    expect(missing).toEqual([]);
  });
});

describe('reverseGeocode', () => {
  it('places a point in Amsterdam in Amsterdam', () => {
    const match = reverseGeocode({ latitude: 52.36801, longitude: 4.879151 });
    expect(match).toMatchObject({ city: 'Amsterdam', countryCode: 'NL', precision: 'city' });
    expectNear(match?.coordinates, 52.37, 4.89);
  });

  it('places central London in London, not in a borough', () => {
    const match = reverseGeocode({ latitude: 51.5074, longitude: -0.1278 });
    expect(match).toMatchObject({ city: 'London', countryCode: 'GB' });
    expectNear(match?.coordinates, 51.51, -0.13);
    // Canary Wharf is a GeoNames neighbourhood (PPLX); the city answers.
    expect(reverseGeocode({ latitude: 51.505, longitude: -0.02 })?.city).toBe('London');
  });

  it('keeps a town its own centre next to a big city', () => {
    expect(reverseGeocode({ latitude: 52.30083, longitude: 4.86389 })?.city).toBe('Amstelveen');
  });

  it('does not let a nearby village shadow the city around the point', () => {
    // 0.4 km north of Kadoelen's centre (1915 inhabitants, in Amsterdam-Noord), 5.3 km from Amsterdam's.
    expect(reverseGeocode({ latitude: 52.4211, longitude: 4.90561 })?.city).toBe('Amsterdam');
    // Nearer still, the point is in the village itself.
    expect(reverseGeocode({ latitude: 52.4176, longitude: 4.90561 })?.city).toBe('Kadoelen');
  });

  it('answers the nearest city for a point outside every city', () => {
    // 0.6 km from Halfweg's centre (2350 inhabitants), 9.5 km from Amsterdam's: beyond Amsterdam's extent.
    expect(reverseGeocode({ latitude: 52.3825, longitude: 4.745 })?.city).toBe('Halfweg');
  });

  it('answers null far from every city and for unusable coordinates', () => {
    expect(reverseGeocode({ latitude: 30, longitude: -40 })).toBeNull();
    expect(reverseGeocode({ latitude: 0, longitude: -160 })).toBeNull();
    expect(reverseGeocode({ latitude: Number.NaN, longitude: 4.9 })).toBeNull();
    expect(reverseGeocode({ latitude: 52.37, longitude: Number.POSITIVE_INFINITY })).toBeNull();
    expect(reverseGeocode({ latitude: 91, longitude: 0 })).toBeNull();
  });

  it('works near the antimeridian and the poles', () => {
    // Suva, Fiji sits at 178.44°E; a point across the antimeridian at 179.9°W is too far.
    expect(reverseGeocode({ latitude: -18.14, longitude: 178.44 })?.countryCode).toBe('FJ');
    expect(reverseGeocode({ latitude: 89.99, longitude: 0 })).toBeNull();
    expect(reverseGeocode({ latitude: -90, longitude: 0 })).toBeNull();
  });

  it('is fast once warmed up', () => {
    const started = performance.now();
    for (let i = 0; i < 1000; i++) {
      reverseGeocode({ latitude: 45 + (i % 100) / 10, longitude: (i % 37) / 2 });
    }
    // Generous bound for slow CI machines; typically about 0.1 ms per lookup.
    expect(performance.now() - started).toBeLessThan(2000);
  });
});
