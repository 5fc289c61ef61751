import { AppError, errorCodes } from '../errors.js';
import { snakePath } from './keys.js';

/** An RFC 9457 problem document as the REST layer sends it. */
export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  errors?: { path: string; message: string }[];
}

/**
 * Maps any thrown value to a problem document. An {@link AppError} keeps its message and field problems
 * (paths in the contract's snake_case); anything else becomes a bare 500 with no internals.
 */
export function toProblem(error: unknown): Problem {
  const appError =
    error instanceof AppError ? error : new AppError('INTERNAL', 'An unexpected error occurred.');
  const { status, title } = errorCodes[appError.code];
  const problem: Problem = {
    type: `urn:connectivity-gateway:problem:${appError.code.toLowerCase().replaceAll('_', '-')}`,
    title,
    status,
    detail: appError.message,
  };
  if (appError.problems.length > 0) {
    problem.errors = appError.problems.map((p) => ({ path: snakePath(p.path), message: p.message }));
  }
  return problem;
}
