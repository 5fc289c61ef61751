/**
 * The rows tenancy and auth operations write, and the shapes they return, built the same way for both
 * dialects: ids, defaults and mappings live here, the SQL in the dialects' `queries/auth.ts` and
 * `queries/tenancy.ts`.
 */
import { newId } from '../../ids.js';
import type {
  ApplicationCredentials,
  ApplicationRow,
  InstanceRow,
  LiveToken,
  NewApplication,
  NewInstance,
  TokenKind,
  TokenPairInput,
  UserRow,
} from '../contract/index.js';

/** A new instance's row, with the defaults the contract promises (EUR, quotes valid 30 days). */
export function newInstanceRow(input: NewInstance): InstanceRow {
  return {
    id: newId('instance'),
    name: input.name,
    code: input.code,
    defaultCurrency: 'EUR',
    quoteValidityDays: 30,
    createdAt: input.now,
    updatedAt: input.now,
  };
}

/** The rows of a new application: its service-account user and the application itself. */
export function newApplicationRows(input: NewApplication) {
  const stamps = { createdAt: input.now, updatedAt: input.now };
  const user = {
    id: newId('user'),
    instanceId: input.instanceId,
    // A service account has no mailbox; `.invalid` (RFC 2606) can never be one.
    email: `${input.clientId}@applications.invalid`,
    firstName: input.name,
    lastName: '',
    roles: input.roles,
    ...stamps,
  };
  const application = {
    id: newId('application'),
    instanceId: input.instanceId,
    userId: user.id,
    name: input.name,
    clientId: input.clientId,
    clientSecretHash: input.clientSecretHash,
    ...stamps,
  };
  return { user, application };
}

/** The two token rows of a new pair: an auth token and a refresh token, same owner, same creation time. */
export function tokenPairRows(input: TokenPairInput) {
  const owner = { instanceId: input.instanceId, userId: input.userId, applicationId: input.applicationId };
  const token = (kind: TokenKind, tokenHash: string, expiresAt: Date) => ({
    id: newId('authToken'),
    ...owner,
    kind,
    tokenHash,
    expiresAt,
    createdAt: input.now,
  });
  return [
    token('auth', input.authTokenHash, input.authTokenExpiresAt),
    token('refresh', input.refreshTokenHash, input.refreshTokenExpiresAt),
  ];
}

/** An application joined with its user, as `findApplicationByClientId` returns it. */
export function toApplicationCredentials(row: {
  application: { id: string; clientSecretHash: string };
  user: UserRow;
}): ApplicationCredentials {
  return {
    applicationId: row.application.id,
    clientSecretHash: row.application.clientSecretHash,
    user: row.user,
  };
}

/** A token joined with its user, as `findLiveToken` returns it. */
export function toLiveToken(row: {
  token: { id: string; applicationId: string; expiresAt: Date };
  user: UserRow;
}): LiveToken {
  return {
    tokenId: row.token.id,
    applicationId: row.token.applicationId,
    expiresAt: row.token.expiresAt,
    user: row.user,
  };
}

/**
 * An `applications` row as the operator sees it (`setApplicationDisabled`): the row's own fields only, so
 * the secret's hash a whole row carries is left behind.
 */
export function toApplicationRow(row: ApplicationRow): ApplicationRow {
  return {
    id: row.id,
    instanceId: row.instanceId,
    name: row.name,
    clientId: row.clientId,
    disabledAt: row.disabledAt,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

/** The distinct ids of `asked` that `live` (the ids found neither revoked nor of a disabled application) lacks. */
export function revokedAmong(asked: readonly string[], live: readonly string[]): string[] {
  const found = new Set(live);
  return [...new Set(asked)].filter((id) => !found.has(id));
}
