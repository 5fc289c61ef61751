import { z } from 'zod';
import { about, named } from './registry.js';
import {
  authenticationSchema,
  availabilityRequestDetailSchema,
  availabilityRequestSchema,
  customerSchema,
  instanceProductSchema,
  optionsSchema,
  paginationSchema,
  projectSchema,
  quoteSchema,
} from './responses.js';

// The whole bodies of successful REST responses, as the route table (`src/rest/routes.ts`) wraps the
// documents: `{data}`, plus `pagination` on lists and `sse_jwt` where the event stream applies.

const sseJwt = () =>
  about(
    'A short-lived JWT for the event stream (`GET /.well-known/mercure`), as `Authorization: Bearer`. Its ' +
      '`mercure.subscribe` claim names the topic `<instance_id>/availability_request` and, for callers that ' +
      'may read orders, `<instance_id>/order`.',
    z.string().regex(/^[\w-]+\.[\w-]+\.[\w-]+$/),
    'eyJhbGciOiJIUzI1NiJ9.eyJtZXJjdXJlIjp7fX0.c2lnbmF0dXJl',
  );

export const authenticationBody = named(
  'AuthenticationResponse',
  'The answer to `POST /authentication`.',
  z.strictObject({ data: authenticationSchema }),
);

export const optionsBody = named(
  'AvailabilityOptionsResponse',
  'The answer to `GET /availability-requests/options`.',
  z.strictObject({ data: optionsSchema }),
);

export const availabilityRequestListBody = named(
  'AvailabilityRequestList',
  'A page of availability requests, newest first.',
  z.strictObject({
    data: z.array(availabilityRequestSchema),
    sse_jwt: sseJwt(),
    pagination: paginationSchema,
  }),
);

export const availabilityRequestsCreatedBody = named(
  'AvailabilityRequestsCreated',
  'One id per created availability request, in the order of the request elements.',
  z.strictObject({
    data: z.array(z.strictObject({ id: z.string().min(1) })),
    message: about('A confirmation message.', z.string()),
  }),
);

export const availabilityRequestBody = named(
  'AvailabilityRequestResponse',
  'One availability request with its products and sources.',
  z.strictObject({ data: availabilityRequestDetailSchema, sse_jwt: sseJwt() }),
);

export const customerListBody = named(
  'CustomerList',
  'A page of customers, by name.',
  z.strictObject({ data: z.array(customerSchema), pagination: paginationSchema }),
);

export const customerBody = named(
  'CustomerResponse',
  'One customer.',
  z.strictObject({ data: customerSchema }),
);

export const projectListBody = named(
  'ProjectList',
  'A page of projects, oldest first.',
  z.strictObject({ data: z.array(projectSchema), pagination: paginationSchema }),
);

export const projectBody = named('ProjectResponse', 'One project.', z.strictObject({ data: projectSchema }));

export const instanceProductListBody = named(
  'InstanceProductList',
  "The instance's instance or mandatory products.",
  z.strictObject({ data: z.array(instanceProductSchema) }),
);

export const quoteBody = named(
  'QuoteResponse',
  'One quote with its lines.',
  z.strictObject({ data: quoteSchema }),
);
