/**
 * The conditions both dialects' auth operations use (`queries/auth.ts`), written once with drizzle's
 * dialect-neutral operators over the tables each dialect passes in.
 */
import { and, type Column, gt, isNull, type SQL, type SQLWrapper, sql, type Table } from 'drizzle-orm';

/** The `auth_tokens` columns the conditions read. */
export interface TokenColumns {
  revokedAt: Column;
  expiresAt: Column;
  applicationId: Column;
}

/** A token neither revoked nor expired at `now` (a time, or a placeholder for one). */
export function isLiveToken(t: TokenColumns, now: Date | SQLWrapper): SQL | undefined {
  return and(isNull(t.revokedAt), gt(t.expiresAt, now));
}

/**
 * The token's application is not disabled, for statements that do not join `applications` (a disabled
 * application's tokens stop working at once: contract/tenancy.ts).
 */
export function ofEnabledApplication(
  tokens: TokenColumns,
  applications: Table & { id: Column; disabledAt: Column },
): SQL {
  return sql`not exists (select 1 from ${applications} where ${applications.id} = ${tokens.applicationId} and ${applications.disabledAt} is not null)`;
}
