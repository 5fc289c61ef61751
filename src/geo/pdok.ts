import { z } from 'zod';
import type { Logger } from '../logger.js';
import type { Geocoder, Located } from './geocoding.js';

/**
 * A document of the PDOK Locatieserver "free" search (API v3.1, Solr-based, BAG addresses): the fields
 * this adapter reads. `centroide_ll` is a WKT point in WGS 84, `POINT(<longitude> <latitude>)`.
 */
const locatieserverResponse = z.object({
  response: z.object({
    numFound: z.number(),
    docs: z.array(
      z.object({
        type: z.string(),
        centroide_ll: z.string(),
        straatnaam: z.string().optional(),
        woonplaatsnaam: z.string().optional(),
        postcode: z.string().optional(),
        huisnummer: z.number().optional(),
      }),
    ),
  }),
});

function parsePoint(wkt: string): { latitude: number; longitude: number } | null {
  const match = /^POINT\(\s*(-?\d+(?:\.\d+)?)\s+(-?\d+(?:\.\d+)?)\s*\)$/.exec(wkt.trim());
  if (!match) return null;
  return { longitude: Number(match[1]), latitude: Number(match[2]) };
}

/**
 * The PDOK Locatieserver adapter: address-precise coordinates for Dutch addresses with a postal code and
 * house number, by a `free` search `postcode:<pc> and huisnummer:<nr>` filtered to `type:adres`
 * (PDOK Locatieserver documentation, "free" endpoint), with the BAG's street (`straatnaam`) and place
 * (`woonplaatsnaam`) to complete an address given without them — so a seller that needs a street (MEF
 * Sonata's `FieldedAddress`) can be asked. Anything else — other countries, an address it does not find, or
 * the service failing or not answering within `timeoutMs` (3 s by default) — is answered by `fallback` (the
 * offline geocoder: postal code area or city), so the precision always says what is really known.
 */
export function createPdokGeocoder(options: {
  baseUrl: string;
  fallback: Geocoder;
  logger: Logger;
  timeoutMs?: number;
}): Geocoder {
  const timeoutMs = options.timeoutMs ?? 3000;
  return {
    async locate(address) {
      if (address.countryCode !== 'NL' || address.postalCode === '' || !/^\d+$/.test(address.houseNumber)) {
        return options.fallback.locate(address);
      }
      const url = new URL(`${options.baseUrl.replace(/\/$/, '')}/free`);
      url.searchParams.set('q', `postcode:${address.postalCode} and huisnummer:${address.houseNumber}`);
      url.searchParams.set('fq', 'type:adres');
      url.searchParams.set('rows', '1');
      url.searchParams.set('fl', 'type centroide_ll straatnaam woonplaatsnaam postcode huisnummer');
      try {
        const response = await fetch(url, {
          signal: AbortSignal.timeout(timeoutMs),
          headers: { accept: 'application/json' },
        });
        if (!response.ok) throw new Error(`Locatieserver answered ${response.status}`);
        const { docs } = locatieserverResponse.parse(await response.json()).response;
        const doc = docs.find((candidate) => candidate.type === 'adres');
        const point = doc ? parsePoint(doc.centroide_ll) : null;
        if (doc && point) {
          const located: Located = {
            coordinates: point,
            precision: 'address',
            city: doc.woonplaatsnaam || null,
            street: doc.straatnaam || null,
          };
          return located;
        }
      } catch (error) {
        options.logger.warn({ err: error }, 'PDOK Locatieserver look-up failed; using the offline geocoder');
      }
      return options.fallback.locate(address);
    },
    reverse: (coordinates) => options.fallback.reverse(coordinates),
  };
}
