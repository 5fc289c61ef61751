/**
 * Geography for addresses: country codes and continents, per-country address
 * field descriptors, postal code normalisation and validation, and geocoding:
 * offline (Dutch postal code areas, cities) or by PDOK's Locatieserver.
 */
export { type AddressFieldKey, addressFieldDescriptors, type FieldDescriptor } from './address-fields.js';
export { continentCode, isCountryCode } from './countries.js';
export {
  type Coordinates,
  geocodeCity,
  type PlaceMatch,
  reverseGeocode,
  warmUpGeocoder,
} from './geocoder.js';
export {
  type AddressToLocate,
  type CoordinatesPrecision,
  createOfflineGeocoder,
  type Geocoder,
  isExactPlace,
  type Located,
  type ReversePlace,
} from './geocoding.js';
export { createPdokGeocoder } from './pdok.js';
export {
  compactPostalCode,
  NL_POSTAL_CODE_PATTERN,
  NO_POSTAL_CODE_PATTERN,
  normalisePostalCode,
  postalCodePattern,
  validatePostalCode,
} from './postal-code.js';
export { postalCodeAreaCentre } from './postal-code-areas.js';
