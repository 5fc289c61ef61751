import { readFileSync } from 'node:fs';
import { z } from 'zod';
import type { Coordinates } from './coordinates.js';

/**
 * The centres of the Dutch 4-digit postal code areas (PC4), vendored in `data/geo/nl-pc4/` with its license
 * and source: 4,073 areas, each the centre of the BAG addresses inside it (WGS 84 decimal degrees).
 */
const NL_PC4_FILE = new URL('../../data/geo/nl-pc4/pc4geoloc.json', import.meta.url);

/** Dutch postal codes run from 1000 to 9999 (the first digit is never 0). */
const FIRST_PC4 = 1000;
const LAST_PC4 = 9999;

/** The file's shape: `{ "1016": [latitude, longitude], … }`. */
const pc4File = z.record(
  z.string().regex(/^[1-9]\d{3}$/, 'is not a Dutch PC4 code'),
  z.tuple([z.number().min(50).max(54), z.number().min(3).max(8)]),
);

/** Normalised Dutch postal code (`"1016XA"`): its PC4 area is the four digits. */
const NL_POSTAL_CODE = /^([1-9]\d{3})[A-Z]{2}$/;

/**
 * Latitude and longitude per PC4 code, packed (`[lat, lon]` at `2 × (code − 1000)`), NaN where the code is
 * unknown: 144 KB for every possible code, instead of a map of 4,073 boxed pairs.
 */
let centres: Float64Array | undefined;

function loadCentres(): Float64Array {
  if (centres === undefined) {
    const parsed = pc4File.parse(JSON.parse(readFileSync(NL_PC4_FILE, 'utf8')));
    const packed = new Float64Array(2 * (LAST_PC4 - FIRST_PC4 + 1)).fill(Number.NaN);
    for (const [code, [latitude, longitude]] of Object.entries(parsed)) {
      const at = 2 * (Number(code) - FIRST_PC4);
      packed[at] = latitude;
      packed[at + 1] = longitude;
    }
    centres = packed;
  }
  return centres;
}

/**
 * Reads the PC4 data now, so the first request does not pay for it (a few milliseconds). Safe to call
 * more than once.
 *
 * @throws Error when the vendored file is missing or not of the expected shape
 */
export function warmUpPostalCodeAreas(): void {
  loadCentres();
}

/**
 * The centre of the postal code area an address lies in, offline: for a Dutch postal code, its PC4 area's
 * centre (neighbourhood or village precision, about 1–2 km in cities). The first call reads the data (see
 * {@link warmUpPostalCodeAreas}); later calls are an array read.
 *
 * @param countryCode - uppercase ISO 3166-1 alpha-2 code; only `NL` has postal-code data
 * @param postalCode - the normalised postal code (`"1016XA"`, no space)
 * @returns the area's centre, or `null` for another country, a code not in the normalised Dutch form, or a
 *   well-formed code the data does not know (a PO-box-only area such as `1000`): never an invented place
 * @throws Error only when the vendored file cannot be read
 */
export function postalCodeAreaCentre(countryCode: string, postalCode: string): Coordinates | null {
  if (countryCode !== 'NL') return null;
  const match = NL_POSTAL_CODE.exec(postalCode);
  if (!match) return null;
  const at = 2 * (Number(match[1]) - FIRST_PC4);
  const packed = loadCentres();
  const latitude = packed[at] ?? Number.NaN;
  const longitude = packed[at + 1] ?? Number.NaN;
  return Number.isNaN(latitude) || Number.isNaN(longitude) ? null : { latitude, longitude };
}
