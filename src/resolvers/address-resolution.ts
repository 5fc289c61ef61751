import type { Context } from '../context.js';
import type { NewAddress } from '../db/rows.js';
import type { FieldProblem } from '../errors.js';
import { addressFieldDescriptors, continentCode, normalisePostalCode } from '../geo/index.js';
import { type AddressInput, addressFieldProblems } from './availability-input.js';
import { countryCodeSchema } from './availability-options.js';

function emptyAddress(countryCode: string): NewAddress {
  return {
    inputKind: 'fields',
    street: '',
    city: '',
    houseNumber: '',
    houseNumberAddition: '',
    postalCode: '',
    countryCode,
    continentCode: countryCode === '' ? '' : continentCode(countryCode),
    latitude: null,
    longitude: null,
    coordinatesPrecision: null,
  };
}

/**
 * Resolves an address input to its stored form, or reports why it cannot be. Coordinates are the address:
 * reverse geocoding fills country, city and continent (DESIGN.md, "Coordinate-only addresses"). Address
 * fields are checked against their country's descriptors and located by the configured geocoder, which also
 * completes a street or city the caller left empty when it knows them (PDOK); the stored precision says what
 * is really known (the given point, the address itself, its postal code area, or only its city).
 *
 * @param path the element's address path for problems, e.g. `/0/address`.
 */
export async function resolveAddress(
  ctx: Context,
  address: AddressInput,
  path: string,
): Promise<{ address: NewAddress; problems: FieldProblem[] }> {
  const given = address.countryCode === undefined ? null : countryCodeSchema.safeParse(address.countryCode);
  if (given && !given.success) {
    const message = given.error.issues[0]?.message ?? 'is invalid';
    return { address: emptyAddress(''), problems: [{ path: `${path}/countryCode`, message }] };
  }
  if (address.coordinates) {
    const place = await ctx.geocoder.reverse(address.coordinates);
    const countryCode = given?.data ?? place?.countryCode ?? '';
    return {
      address: {
        ...emptyAddress(countryCode),
        inputKind: 'coordinates',
        city: place && place.countryCode === countryCode ? place.city : '',
        latitude: address.coordinates.latitude,
        longitude: address.coordinates.longitude,
        coordinatesPrecision: 'given',
      },
      problems: [],
    };
  }
  if (!given) {
    return {
      address: emptyAddress(''),
      problems: [{ path: `${path}/countryCode`, message: 'is required unless coordinates are given' }],
    };
  }
  const countryCode = given.data;
  const problems = addressFieldProblems(
    address,
    countryCode,
    addressFieldDescriptors(countryCode) ?? [],
    path,
  );
  const fields = {
    street: address.street?.trim() ?? '',
    city: address.city?.trim() ?? '',
    houseNumber: address.houseNumber?.trim() ?? '',
    houseNumberAddition: address.houseNumberAddition?.trim() ?? '',
    postalCode: address.postalCode ? normalisePostalCode(countryCode, address.postalCode) : '',
    countryCode,
  };
  // Invalid addresses are refused anyway: no need to ask a geocoder about them.
  const located = problems.length > 0 ? null : await ctx.geocoder.locate(fields);
  return {
    address: {
      ...fields,
      inputKind: 'fields',
      street: fields.street === '' ? (located?.street ?? '') : fields.street,
      city: fields.city === '' ? (located?.city ?? '') : fields.city,
      continentCode: continentCode(countryCode),
      latitude: located?.coordinates.latitude ?? null,
      longitude: located?.coordinates.longitude ?? null,
      coordinatesPrecision: located?.precision ?? null,
    },
    problems,
  };
}
