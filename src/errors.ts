/**
 * Typed application errors with stable codes. Resolvers throw them; GraphQL maps a code to
 * `extensions.code` and REST to a problem+json status, both through {@link errorCodes}
 * (DESIGN.md, "Errors").
 */
export const errorCodes = {
  MALFORMED: { status: 400, graphql: 'BAD_REQUEST', title: 'Malformed request' },
  UNAUTHENTICATED: { status: 401, graphql: 'UNAUTHENTICATED', title: 'Authentication required' },
  FORBIDDEN: { status: 403, graphql: 'FORBIDDEN', title: 'Forbidden' },
  NOT_FOUND: { status: 404, graphql: 'NOT_FOUND', title: 'Not found' },
  METHOD_NOT_ALLOWED: { status: 405, graphql: 'BAD_REQUEST', title: 'Method not allowed' },
  CONFLICT: { status: 409, graphql: 'CONFLICT', title: 'Conflict' },
  LENGTH_REQUIRED: { status: 411, graphql: 'BAD_REQUEST', title: 'Length required' },
  PAYLOAD_TOO_LARGE: { status: 413, graphql: 'BAD_REQUEST', title: 'Payload too large' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, graphql: 'BAD_REQUEST', title: 'Unsupported media type' },
  VALIDATION: { status: 422, graphql: 'BAD_USER_INPUT', title: 'Invalid input' },
  LIMIT_EXCEEDED: { status: 429, graphql: 'LIMIT_EXCEEDED', title: 'Limit exceeded' },
  INTERNAL: { status: 500, graphql: 'INTERNAL_SERVER_ERROR', title: 'Internal server error' },
  UNAVAILABLE: { status: 503, graphql: 'UNAVAILABLE', title: 'Service unavailable' },
} as const;

export type ErrorCode = keyof typeof errorCodes;

/** One problem with one input value; `path` is JSON-pointer-like (`/0/address/postal_code`). */
export interface FieldProblem {
  path: string;
  message: string;
}

/** An expected error: its message is safe to show to the caller. */
export class AppError extends Error {
  override readonly name = 'AppError';

  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly problems: FieldProblem[] = [],
    options?: ErrorOptions,
  ) {
    super(message, options);
  }

  /**
   * GraphQL error extensions. graphql-js copies an original error's `extensions` onto the GraphQLError
   * it wraps it in, so expected errors reach clients with their code without being re-created (and
   * without Yoga logging them as unexpected).
   */
  get extensions(): { code: string; problems?: FieldProblem[] } {
    const code = errorCodes[this.code].graphql;
    return this.problems.length > 0 ? { code, problems: this.problems } : { code };
  }
}

/** 422 with one entry per invalid field. */
export function validationError(problems: FieldProblem[], message = 'The input is invalid.'): AppError {
  return new AppError('VALIDATION', message, problems);
}

/** 404 for an id that does not exist in the caller's instance (identical for another instance's id). */
export function notFound(what: string, id: string): AppError {
  return new AppError('NOT_FOUND', `${what} ${JSON.stringify(id)} was not found.`);
}

/** A server every instance depends on: the store (SQLite file or PostgreSQL) or Redis. */
export type Dependency = 'store' | 'redis';

/** How long a caller is asked to wait before retrying when a dependency is down (`Retry-After`, seconds). */
export const DEPENDENCY_RETRY_AFTER_SECONDS = 5;

/**
 * 503 for a dependency that cannot be reached or cannot take the work now (issue 48): the store unreachable
 * or restarting, an SQLite file busy beyond its busy timeout or full, Redis down. Nothing is the caller's
 * fault and nothing was half-done: the caller retries after {@link retryAfterSeconds} (REST sends it as
 * `Retry-After`, RFC 9110 §10.2.3; GraphQL answers `extensions.code: "UNAVAILABLE"`). The driver's error is
 * kept as `cause` for the log, never shown.
 */
export class DependencyUnavailableError extends AppError {
  readonly retryAfterSeconds = DEPENDENCY_RETRY_AFTER_SECONDS;

  constructor(
    readonly dependency: Dependency,
    options?: ErrorOptions,
  ) {
    super(
      'UNAVAILABLE',
      dependency === 'store'
        ? 'The database is unavailable; try again in a few seconds.'
        : 'Redis is unavailable; try again in a few seconds.',
      [],
      options,
    );
  }
}

/** Whether `error` says the store cannot be reached or take the work now (see {@link DependencyUnavailableError}). */
export function isStoreUnavailable(error: unknown): error is DependencyUnavailableError {
  return error instanceof DependencyUnavailableError && error.dependency === 'store';
}
