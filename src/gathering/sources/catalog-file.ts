import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';

const key = z.string().regex(/^[a-z0-9]+(?:-[a-z0-9]+)*$/, 'must be lowercase kebab-case');
const minorUnits = z.number().int().positive();

/**
 * The file format of a supplier catalogue (`data/catalogs/*.json`): sources (one per supplier
 * system), coverage areas (postal-code prefix ranges and city names) and offers with purchase prices
 * per contract term. Bandwidths are in kbps, terms in months, prices in minor units (cents).
 */
export const catalogFileSchema = z
  .strictObject({
    country_code: z.string().regex(/^[A-Z]{2}$/),
    currency: z.string().regex(/^[A-Z]{3}$/),
    sources: z
      .array(
        z.strictObject({
          key,
          name: z.string().min(1),
          network: z.string().min(1),
          latency_ms: z.strictObject({ min: z.number().int().min(0), max: z.number().int().min(0) }),
        }),
      )
      .min(1),
    areas: z.array(
      z.strictObject({
        key,
        name: z.string().min(1),
        postal_code_ranges: z.array(z.tuple([z.string().min(1), z.string().min(1)])),
        cities: z.array(z.string().min(1)),
      }),
    ),
    offers: z.array(
      z.strictObject({
        source: key,
        areas: z.union([z.literal('*'), z.array(key).min(1)]),
        technology_type: z.string().regex(/^[A-Z0-9_]+$/),
        connection_type: z.string().regex(/^[A-Z0-9_]+$/),
        bandwidth: z.strictObject({ download: z.number().int().positive(), upload: z.number().int().min(0) }),
        prices: z.record(
          z.string().regex(/^[1-9][0-9]*$/, 'contract term in months'),
          z.strictObject({ mrc: minorUnits, nrc: z.number().int().min(0) }),
        ),
      }),
    ),
  })
  .superRefine((file, ctx) => {
    const sourceKeys = new Set(file.sources.map((source) => source.key));
    const areaKeys = new Set(file.areas.map((area) => area.key));
    if (sourceKeys.size !== file.sources.length)
      ctx.addIssue({ code: 'custom', message: 'duplicate source key' });
    if (areaKeys.size !== file.areas.length) ctx.addIssue({ code: 'custom', message: 'duplicate area key' });
    file.offers.forEach((offer, index) => {
      if (!sourceKeys.has(offer.source)) {
        ctx.addIssue({
          code: 'custom',
          path: ['offers', index, 'source'],
          message: `unknown source ${offer.source}`,
        });
      }
      for (const area of offer.areas === '*' ? [] : offer.areas) {
        if (!areaKeys.has(area)) {
          ctx.addIssue({ code: 'custom', path: ['offers', index, 'areas'], message: `unknown area ${area}` });
        }
      }
    });
  });

/** A parsed, cross-checked catalogue file. */
export type CatalogFile = z.infer<typeof catalogFileSchema>;

/**
 * Reads and validates a catalogue file.
 * @throws {z.ZodError} when the file does not follow {@link catalogFileSchema}.
 */
export function readCatalogFile(path: string): CatalogFile {
  return catalogFileSchema.parse(JSON.parse(readFileSync(path, 'utf8')));
}

/** Path of the shipped realistic NL demo catalogue (Colt, Eurofiber, KPN, Tele2, Ziggo, Zayo). */
export const demoCatalogPath = fileURLToPath(new URL('../../../data/catalogs/nl-demo.json', import.meta.url));
