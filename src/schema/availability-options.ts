import type { FieldDescriptor } from '../geo/index.js';
import {
  type AvailabilityOptions,
  availabilityOptions,
  type FilterValueSets,
} from '../resolvers/availability-options.js';
import { builder } from './builder.js';
import { Bandwidth } from './common.js';

const AddressFieldDescriptor = builder.objectRef<FieldDescriptor>('AddressFieldDescriptor').implement({
  description: 'One address field of a country: whether it is required and the pattern its value must match.',
  fields: (t) => ({
    countryCode: t.exposeString('countryCode', {
      description: 'ISO 3166-1 alpha-2 code the descriptor applies to.',
    }),
    key: t.exposeString('key', {
      description:
        'The address field: country_code, street, city, house_number, house_number_addition, postal_code.',
    }),
    name: t.exposeString('name', { description: 'Human-readable label.' }),
    required: t.exposeBoolean('required', { description: 'Whether the field is required in this country.' }),
    regex: t.exposeString('regex', {
      description: 'Pattern (JavaScript syntax, anchored) the value must match.',
    }),
  }),
});

const AvailabilityFilterValues = builder.objectRef<FilterValueSets>('AvailabilityFilterValues').implement({
  description: 'The filter values available in a country, from the instance’s enabled sources.',
  fields: (t) => ({
    technologyTypes: t.exposeStringList('technologyTypes', { description: 'e.g. FIBER, VDSL.' }),
    connectionTypes: t.exposeStringList('connectionTypes', { description: 'DIA or SHARED.' }),
    networks: t.exposeStringList('networks', { description: 'Network names, e.g. KPN, Eurofiber.' }),
    bandwidths: t.field({
      type: [Bandwidth],
      description: 'Download/upload pairs in kbps.',
      resolve: (v) => v.bandwidths,
    }),
    contractTerms: t.exposeIntList('contractTerms', { description: 'Contract terms in months.' }),
  }),
});

const AvailabilityOptionsRef = builder.objectRef<AvailabilityOptions>('AvailabilityOptions').implement({
  description: 'The address fields and filter values of one country.',
  fields: (t) => ({
    countryCode: t.exposeString('countryCode', { description: 'ISO 3166-1 alpha-2 code.' }),
    fields: t.field({ type: [AddressFieldDescriptor], resolve: (options) => options.fields }),
    filters: t.field({ type: AvailabilityFilterValues, resolve: (options) => options.filters }),
  }),
});

builder.queryField('availabilityOptions', (t) =>
  t.field({
    type: AvailabilityOptionsRef,
    description: 'Address fields and filter values for a country (REST: GET /availability-requests/options).',
    args: { countryCode: t.arg.string({ required: true, description: 'ISO 3166-1 alpha-2, e.g. NL.' }) },
    resolve: (_root, args, ctx) => availabilityOptions(ctx, args),
  }),
);
