import type { ProductSource as ProductSourceRow } from '../db/rows.js';
import { builder } from './builder.js';

/** A bandwidth pair in kbps. */
export const Bandwidth = builder.objectRef<{ download: number; upload: number }>('Bandwidth').implement({
  description: 'A download/upload pair in kbps (2000/2000 is 2 Mbit/s symmetric).',
  fields: (t) => ({
    download: t.exposeInt('download', { description: 'Download bandwidth in kbps.' }),
    upload: t.exposeInt('upload', { description: 'Upload bandwidth in kbps.' }),
  }),
});

/** A WGS84 position. */
export const Coordinates = builder
  .objectRef<{ latitude: number; longitude: number }>('Coordinates')
  .implement({
    description: 'A WGS84 position in decimal degrees.',
    fields: (t) => ({
      latitude: t.exposeFloat('latitude'),
      longitude: t.exposeFloat('longitude'),
    }),
  });

export const BandwidthInput = builder.inputType('BandwidthInput', {
  description: 'A download/upload pair in kbps.',
  fields: (t) => ({
    download: t.int({ required: true, description: 'kbps' }),
    upload: t.int({ required: true, description: 'kbps' }),
  }),
});

export const CoordinatesInput = builder.inputType('CoordinatesInput', {
  description: 'A WGS84 position in decimal degrees.',
  fields: (t) => ({
    latitude: t.float({ required: true, description: '−90 to 90.' }),
    longitude: t.float({ required: true, description: '−180 to 180.' }),
  }),
});

/**
 * The slim source a product or line names (issue 49): which source offered it, so twin products of one
 * network from two sources can be told apart; never the source's settings. REST: `source`.
 */
export const ProductSource = builder.objectRef<ProductSourceRow>('ProductSource').implement({
  description:
    'The source that offered a product (a supplier catalogue or API); two products of one network from two sources differ here.',
  fields: (t) => ({
    id: t.exposeID('id'),
    name: t.exposeString('name'),
    type: t.exposeString('type', { description: 'catalog, http or mef-sonata.' }),
  }),
});
