/**
 * Tenancy and auth: instances (tenants), their users and applications, auth tokens, and the service's own
 * settings.
 */

/** An instance: a tenant (a reseller). Every other row belongs to exactly one instance. */
export interface InstanceRow {
  id: string;
  name: string;
  /** Short upper-case code, unique across instances; the suffix of quote numbers (`2026-0003-ACM`). */
  code: string;
  /** ISO 4217 currency of quotes for customers without a preferred currency. */
  defaultCurrency: string;
  /** Days a quote stays valid after its creation date. */
  quoteValidityDays: number;
  createdAt: Date;
  updatedAt: Date;
}

/** A person or service account of an instance. */
export interface UserRow {
  id: string;
  instanceId: string;
  email: string;
  firstName: string;
  lastName: string;
  /** The user's language, as the authentication response shows it; `en` unless set. */
  locale: string;
  /** Role names: `instance_admin`, `connectivity_check`. */
  roles: string[];
  createdAt: Date;
  updatedAt: Date;
}

/** Input of `insertInstance`; the default currency (EUR) and quote validity (30 days) are the store's. */
export interface NewInstance {
  name: string;
  code: string;
  now: Date;
}

/** Input of `insertApplication`: a service-account user plus its client credentials. */
export interface NewApplication {
  instanceId: string;
  /** The application's name, also its user's first name. */
  name: string;
  /** Roles of the application's service-account user. */
  roles: string[];
  clientId: string;
  /** SHA-256 (hex) of the client secret; the secret itself is never stored. */
  clientSecretHash: string;
  now: Date;
}

/** What `insertApplication` created. */
export interface CreatedApplication {
  applicationId: string;
  userId: string;
}

/** An application found by its client id, with its service-account user. */
export interface ApplicationCredentials {
  applicationId: string;
  /** SHA-256 (hex) of the client secret, to compare with the presented one's. */
  clientSecretHash: string;
  user: UserRow;
}

/** The two kinds of token: short-lived auth tokens and the refresh tokens that renew them. */
export type TokenKind = 'auth' | 'refresh';

/** Hashes and expiry times of a new auth-token / refresh-token pair. Tokens are stored as hashes only. */
export interface TokenPairInput {
  instanceId: string;
  userId: string;
  applicationId: string;
  /** SHA-256 (hex) of the auth token. */
  authTokenHash: string;
  authTokenExpiresAt: Date;
  /** SHA-256 (hex) of the refresh token. */
  refreshTokenHash: string;
  refreshTokenExpiresAt: Date;
  /** The pair's creation time; also the revocation time of the refresh token a rotation uses up. */
  now: Date;
}

/** A live token (unexpired, unrevoked) with its user. */
export interface LiveToken {
  tokenId: string;
  applicationId: string;
  expiresAt: Date;
  user: UserRow;
}

/** An application as the operator sees it: never its secret. */
export interface ApplicationRow {
  id: string;
  instanceId: string;
  /** The application's label (also its service-account user's first name). */
  name: string;
  clientId: string;
  /** When an operator disabled it; null while it is enabled. */
  disabledAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

/** Input of `setApplicationDisabled`. */
export interface ApplicationDisabling {
  clientId: string;
  /** Only an application of this instance (an instance admin's own); any instance when undefined (the operator). */
  instanceId?: string;
  /** True to disable, false to enable again. */
  disabled: boolean;
  /** The time written as `disabledAt`, and as the revocation time of the tokens a disable revokes. */
  now: Date;
}

/** What `revokeAuthToken` revoked. */
export interface RevokedToken {
  tokenId: string;
  applicationId: string;
  instanceId: string;
}

/** Tenancy and auth operations. */
export interface TenancyOperations {
  /**
   * The enabled application with this client id and its service-account user, or undefined — also for a
   * disabled application, which cannot sign in. Reads only.
   */
  findApplicationByClientId: (clientId: string) => Promise<ApplicationCredentials | undefined>;
  /** Stores a new token pair: both tokens or neither. */
  insertTokenPair: (input: TokenPairInput) => Promise<void>;
  /**
   * Swaps a refresh token for a new pair in one transaction: revokes the used refresh token (at
   * `input.now`) and stores the new pair. A refresh token works exactly once, also when several rotations
   * of it run at once: returns false, and writes nothing, when it was already used, revoked or expired
   * (or is unknown), or its application is disabled.
   */
  rotateRefreshToken: (usedRefreshTokenId: string, input: TokenPairInput) => Promise<boolean>;
  /**
   * The live token of this kind and hash at `now` (expiring after it, not revoked, of an application that
   * is not disabled) with its user, or undefined. Read on every authenticated request (through a cache, see
   * `src/resolvers/authentication.ts`).
   */
  findLiveToken: (kind: TokenKind, tokenHash: string, now: Date) => Promise<LiveToken | undefined>;
  /**
   * Of `tokenIds`, those cut off for good: revoked, of a disabled application, or unknown. Expiry does not
   * count (an expired token is refused by `findLiveToken`, but the sessions opened with it may run on).
   * One read, in no particular order; duplicates in `tokenIds` are answered once. Read for every open
   * session (WebSocket, event stream) every few seconds, to make up for a lost revocation message.
   */
  findRevokedTokens: (tokenIds: readonly string[]) => Promise<string[]>;
  /**
   * Revokes the auth token with this id at `now`, and the refresh token issued in the same pair (the
   * refresh token of the same application created at the same instant: two pairs of one application issued
   * in the same millisecond lose both refresh tokens, which errs on the side of safety). One transaction;
   * a revocation racing another of the same token revokes it once. Returns the auth token revoked, or
   * undefined — writing nothing — when there is no auth token with that id or it was revoked already.
   */
  revokeAuthToken: (tokenId: string, now: Date) => Promise<RevokedToken | undefined>;
  /**
   * Disables (or enables again) the application with `clientId` — of `instanceId` when given — in one
   * transaction. Disabling keeps the first `disabledAt` of an application disabled already and revokes
   * every token of the application not yet revoked (at `now`). Enabling clears `disabledAt` and revokes (at
   * `now`) the tokens stored while it was disabled — sign-ins and refreshes that raced the disabling, never
   * accepted meanwhile — so enabling brings no token back: its clients sign in anew. Returns the
   * application as it is afterwards, or undefined (writing nothing) when there is none with that client id
   * (in that instance).
   */
  setApplicationDisabled: (input: ApplicationDisabling) => Promise<ApplicationRow | undefined>;
  /**
   * Creates an instance with the default currency EUR and quotes valid for 30 days.
   * @throws the driver's unique-constraint error when `code` is taken (callers check first with
   * `findInstance`, and answer `CONFLICT`).
   */
  insertInstance: (input: NewInstance) => Promise<InstanceRow>;
  /** The instance with this id or code, or undefined. */
  findInstance: (idOrCode: string) => Promise<InstanceRow | undefined>;
  /** The ids of every instance, oldest first; ties in bytewise id order. */
  listInstanceIds: () => Promise<string[]>;
  /** Number of instances (0 on a fresh database). */
  countInstances: () => Promise<number>;
  /**
   * Creates an application and its service-account user (email `<clientId>@applications.invalid`, the
   * application's name as first name) in one transaction.
   * @throws the driver's unique-constraint error when the client id is taken; nothing is written then.
   */
  insertApplication: (input: NewApplication) => Promise<CreatedApplication>;
  /**
   * The stored value of a service setting, storing `candidate` first when there is none. Atomic: processes
   * starting at once all get the one value that was stored.
   * @throws Error when the setting vanished in between (settings are never deleted).
   */
  getOrCreateSetting: (key: string, candidate: string) => Promise<string>;
}
