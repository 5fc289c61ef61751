import { describe, expect, it } from 'vitest';
import { cityLatitude, cityLongitude, loadCities } from '../../src/geo/city-data.js';
import { CityGrid } from '../../src/geo/city-grid.js';
import { type Coordinates, distanceKm } from '../../src/geo/coordinates.js';

describe('distanceKm', () => {
  it('measures great-circle distances', () => {
    const amsterdam = { latitude: 52.37403, longitude: 4.88969 };
    const london = { latitude: 51.50853, longitude: -0.12574 };
    expect(distanceKm(amsterdam, london)).toBeCloseTo(357, 0);
    expect(distanceKm(amsterdam, amsterdam)).toBe(0);
    expect(distanceKm({ latitude: 0, longitude: 0 }, { latitude: 0, longitude: 180 })).toBeCloseTo(20015, 0);
  });
});

describe('CityGrid', () => {
  const cities = loadCities();
  const grid = new CityGrid(cities);

  function bruteForce(point: Coordinates, radiusKm: number): number[] {
    return cities
      .filter(
        (city) =>
          distanceKm(point, { latitude: cityLatitude(city), longitude: cityLongitude(city) }) <= radiusKm,
      )
      .map((city) => city.cityId)
      .sort((a, b) => a - b);
  }

  it('finds exactly the cities a full scan finds, including across the antimeridian and near poles', () => {
    const points: Coordinates[] = [
      { latitude: 52.37, longitude: 4.89 },
      { latitude: 51.0, longitude: 0.0 },
      { latitude: -18.1, longitude: 179.8 },
      { latitude: -18.1, longitude: -179.9 },
      { latitude: 65.0, longitude: -179.5 },
      { latitude: 78.22, longitude: 15.65 },
      { latitude: 89.8, longitude: 10 },
      { latitude: 69.65, longitude: 18.96 },
      { latitude: 0, longitude: 0 },
      { latitude: -33.87, longitude: 151.21 },
    ];
    for (const point of points) {
      for (const radiusKm of [10, 50, 150]) {
        const found = grid
          .near(point, radiusKm)
          .map(({ city }) => city.cityId)
          .sort((a, b) => a - b);
        expect(found, `${point.latitude},${point.longitude} r=${radiusKm}`).toEqual(
          bruteForce(point, radiusKm),
        );
      }
    }
  });
});
