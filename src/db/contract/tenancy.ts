/*
 * PLACEHOLDER (issue 33, being rewritten by hand): Tenancy and auth: instances, users, applications, auth tokens, service settings.
 * Derived from the SQLite queries until this file states the contract itself.
 */

import type * as auth from '../sqlite/queries/auth.js';
import type * as tenancy from '../sqlite/queries/tenancy.js';
import type { Operation } from './operation.js';

export type { TokenPairInput } from '../sqlite/queries/auth.js';
export type { InstanceRow, NewApplication, UserRow } from '../sqlite/queries/tenancy.js';

/** Tenancy and auth: instances, users, applications, auth tokens, service settings. */
export type TenancyOperations = {
  findApplicationByClientId: Operation<typeof auth.findApplicationByClientId>;
  insertTokenPair: Operation<typeof auth.insertTokenPair>;
  rotateRefreshToken: Operation<typeof auth.rotateRefreshToken>;
  findLiveToken: Operation<typeof auth.findLiveToken>;
  insertInstance: Operation<typeof tenancy.insertInstance>;
  findInstance: Operation<typeof tenancy.findInstance>;
  listInstanceIds: Operation<typeof tenancy.listInstanceIds>;
  countInstances: Operation<typeof tenancy.countInstances>;
  insertApplication: Operation<typeof tenancy.insertApplication>;
  getOrCreateSetting: Operation<typeof tenancy.getOrCreateSetting>;
};
