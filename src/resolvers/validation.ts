import type { z } from 'zod';
import type { AppError } from '../errors.js';
import { type FieldProblem, validationError } from '../errors.js';

/** JSON-pointer-like path of a zod issue (`['0','address','postalCode']` → `/0/address/postalCode`). */
export function pointer(path: readonly PropertyKey[]): string {
  return path.map((segment) => `/${String(segment)}`).join('');
}

/** Turns zod issues into field problems. */
export function zodProblems(error: z.ZodError, prefix: readonly PropertyKey[] = []): FieldProblem[] {
  return error.issues.flatMap((issue) =>
    // One problem per unknown key, at the key itself, so a caller sees which field to remove.
    issue.code === 'unrecognized_keys'
      ? issue.keys.map((key) => ({
          path: pointer([...prefix, ...issue.path, key]),
          message: 'is not a known field',
        }))
      : [{ path: pointer([...prefix, ...issue.path]), message: issue.message }],
  );
}

/**
 * Parses `input` with `schema`, or throws one 422 listing every issue.
 * @throws {AppError} `VALIDATION` with a problem per invalid field.
 */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown, message?: string): z.output<S> {
  const broken = malformedText(input);
  if (broken.length > 0) throw validationError(broken, message);
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const error: AppError = validationError(zodProblems(result.error), message);
  throw error;
}

/** Why a string cannot be stored as text, or null when it can. */
function textProblem(value: string): string | null {
  if (!value.isWellFormed()) return 'is not valid Unicode text';
  if (value.includes('\u0000')) return 'may not contain the NUL character (U+0000)';
  return null;
}

/**
 * Strings that are not well-formed UTF-16 (lone surrogates) cannot be stored as text: SQLite would keep
 * replacement characters instead, so what is read back would differ from what was accepted. Nor can a
 * NUL character (U+0000): PostgreSQL's `text` refuses it, so both stores refuse it alike. Keys and
 * values at any depth are checked; `path` is the walk's position, a problem's pointer is built only for a
 * problem (a batch of 100 addresses has about a thousand strings).
 */
function malformedText(
  value: unknown,
  path: PropertyKey[] = [],
  problems: FieldProblem[] = [],
): FieldProblem[] {
  if (typeof value === 'string') {
    const problem = textProblem(value);
    if (problem) problems.push({ path: pointer(path), message: problem });
  } else if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index++) {
      path.push(index);
      malformedText(value[index], path, problems);
      path.pop();
    }
  } else if (value !== null && typeof value === 'object') {
    for (const key of Object.keys(value)) {
      path.push(key);
      const problem = textProblem(key);
      if (problem) problems.push({ path: pointer(path), message: problem });
      malformedText((value as Record<string, unknown>)[key], path, problems);
      path.pop();
    }
  }
  return problems;
}
