import isoCountries from 'i18n-iso-countries';
import { reverseGeocode } from '../../../geo/geocoder.js';
import type { ItemProblem } from './errors.js';
import type { SellerPlace } from './offerings.js';

/**
 * The install place's role names the documents use: `INSTALL_LOCATION` in the POQ developer guide's examples
 * (MEF 87 §6.3.4), `INSTALL_ADDRESS` in prose elsewhere; the sellers accept both (issue 18).
 */
export const INSTALL_ROLES = ['INSTALL_LOCATION', 'INSTALL_ADDRESS'];

type Json = Record<string, unknown>;

/** ISO 3166-1 alpha-2 for an alpha-2 or alpha-3 `country`; anything else is kept (and covers nothing). */
function countryCode(country: unknown): string {
  const text = String(country ?? '')
    .trim()
    .toUpperCase();
  if (text.length === 3) return isoCountries.alpha3ToAlpha2(text) ?? text;
  return text;
}

const text = (value: unknown) => (typeof value === 'string' ? value : '');

/**
 * The place an item's `product.place` asks about, as the catalogue's coverage reads it (postal code, else
 * city). `FieldedAddress` and `FormattedAddress` give `country`, `postcode`, `city` (postal code without
 * spaces); a `MEFGeographicPoint` (`x` latitude, `y` longitude, WGS 84 per its `spatialRef`) is placed in its
 * city offline (src/geo `reverseGeocode`). References (`GeographicAddressRef`, `GeographicSiteRef`,
 * `GeographicAddressLabel`) need the seller's address and site APIs, which these sellers lack.
 *
 * @returns the place, or the {@link ItemProblem} that terminates the item (no install place:
 *   `missingProperty`; an unknown reference: `referenceNotFound`; unreadable point: `invalidValue`).
 */
export function installPlace(places: Json[] | undefined, pointer: string): SellerPlace | ItemProblem {
  const index = (places ?? []).findIndex((candidate) => INSTALL_ROLES.includes(text(candidate.role)));
  const place = places?.[index];
  if (!place) {
    return {
      code: 'missingProperty',
      propertyPath: `${pointer}/place`,
      reason: `An install place (role ${INSTALL_ROLES.join(' or ')}) is required.`,
    };
  }
  const at = `${pointer}/place/${index}`;
  switch (place['@type']) {
    case 'FieldedAddress':
    case 'FormattedAddress':
      return {
        countryCode: countryCode(place.country),
        postalCode: text(place.postcode).replace(/\s+/g, '').toUpperCase(),
        city: text(place.city),
      };
    case 'MEFGeographicPoint': {
      const latitude = Number.parseFloat(text(place.x));
      const longitude = Number.parseFloat(text(place.y));
      if (
        !/4326|WGS\s*-?84/i.test(text(place.spatialRef)) ||
        Number.isNaN(latitude) ||
        Number.isNaN(longitude)
      ) {
        return {
          code: 'invalidValue',
          propertyPath: at,
          reason:
            'A point needs spatialRef "EPSG:4326 WGS 84" and decimal degrees in x (latitude) and y (longitude).',
        };
      }
      const found = reverseGeocode({ latitude, longitude });
      return { countryCode: found?.countryCode ?? '', postalCode: '', city: found?.city ?? '' };
    }
    default:
      return {
        code: 'referenceNotFound',
        propertyPath: `${at}/@type`,
        reason: `This seller qualifies FieldedAddress, FormattedAddress and MEFGeographicPoint places, not ${text(place['@type'])}.`,
      };
  }
}

/** Whether a parse result is a problem rather than a value. */
export function isProblem(value: unknown): value is ItemProblem {
  return typeof value === 'object' && value !== null && 'code' in value && 'propertyPath' in value;
}
