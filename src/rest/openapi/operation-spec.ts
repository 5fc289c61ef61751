/** The shape of one REST operation's entry in the OpenAPI document. */
import type { z } from 'zod';

/** Query parameters, by their component name in the document. */
export type QueryParameter =
  | 'Page'
  | 'PageSize'
  | 'FilterName'
  | 'CountryCode'
  | 'CustomerId'
  | 'FilterCustomerId'
  | 'FilterStatus';

/**
 * What the document says about one route of `src/rest/routes.ts` beyond what the route table itself
 * tells (method, path, authentication, body): its name, words, query, body and successful answer.
 */
export interface OperationSpec {
  operationId: string;
  tag: string;
  summary: string;
  description: string;
  query?: QueryParameter[];
  /** The request body's component name (see `requestBodySchemas`). */
  requestBody?: string;
  /** The successful answer; without `body` it has none (a 204). */
  response: { status: 200 | 201 | 202 | 204; description: string; body?: z.ZodType };
  /** Problem statuses this route answers besides those its route flags imply (see `problemStatuses`). */
  problems?: number[];
}
