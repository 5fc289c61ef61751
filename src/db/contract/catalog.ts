/**
 * The store's contract for the catalogue and sources: imported catalogue offers and areas, the value sets
 * the options endpoint and the filters check read, the sources of an instance with their settings, and the
 * instance's own products.
 */
import type {
  InstanceProductFulfilment,
  SourceType,
  StoredHubListeners,
  StoredSourceSettings,
} from '../values.js';

/**
 * A source of offers for one network: a supplier's system, or the instance's catalogue of it. The options
 * endpoint's `networks` are the networks of the enabled sources.
 */
/**
 * The slim view of a source that products and lines carry (issue 49): which source offered it, so twin
 * products of one network from two sources can be told apart. Never the source's settings.
 */
export interface ProductSource {
  id: string;
  name: string;
  type: SourceType;
}

export interface SourceRow {
  id: string;
  instanceId: string;
  /** Stable key within the instance, e.g. `kpn-wba`. */
  key: string;
  name: string;
  /** Network name as published in the options (`KPN`, `Eurofiber`, …). */
  network: string;
  type: SourceType;
  /** ISO 3166 alpha-2 codes the source answers for. */
  countryCodes: string[];
  enabled: boolean;
  /** Simulated answer time of a catalogue source, in milliseconds. */
  latencyMinMs: number;
  latencyMaxMs: number;
  /** `http` sources: the supplier's availability endpoint; `mef-sonata` sources: the seller's base URL. */
  endpointUrl: string | null;
  /**
   * `http` sources: the bearer credential sent to the supplier; `mef-sonata` sources: the OAuth2 client
   * secret. Never returned by any API.
   */
  credentials: string | null;
  /** `mef-sonata` sources: the settings besides the base URL and the client secret. */
  settings: StoredSourceSettings | null;
  /** `mef-sonata` sources: the hub listeners registered at the seller, so no restart registers again. */
  hubListeners: StoredHubListeners | null;
  /** Time allowed for one call to the source, in milliseconds. */
  timeoutMs: number;
  /** Calls to the source in flight at once (bulkhead). */
  concurrency: number;
  createdAt: Date;
  updatedAt: Date;
}

/** Distinct values the catalogue offers through some sources, for the options endpoint and filter checks. */
export interface CatalogValueSets {
  readonly technologyTypes: readonly string[];
  readonly connectionTypes: readonly string[];
  /** In kbps. */
  readonly bandwidths: readonly { readonly download: number; readonly upload: number }[];
  /** In months. */
  readonly contractTerms: readonly number[];
}

/**
 * The terms of an offer as a source sells it: technology, connection type, bandwidth, contract term and
 * purchase prices in integer minor units of `currency` — a catalogue offer's, and a gathered product's.
 */
export interface OfferTerms {
  technologyType: string;
  connectionType: string;
  downloadKbps: number;
  uploadKbps: number;
  contractTermMonths: number;
  purchaseMrcMinor: number;
  purchaseNrcMinor: number;
  /** ISO 4217, the unit of every amount of the row. */
  currency: string;
}

/** One offer of a catalogue source in one area (null: nationwide) and contract term. */
export interface CatalogOfferRow extends OfferTerms {
  id: string;
  instanceId: string;
  sourceId: string;
  areaId: string | null;
  createdAt: Date;
}

/**
 * A catalogue file to import, as `src/gathering/sources/catalog-file.ts` parses and cross-checks it
 * (`data/catalogs/*.json`): its sources, coverage areas and offers. Bandwidths in kbps, latencies in
 * milliseconds, prices in integer minor units, keyed by contract term in months (a decimal string).
 */
export interface CatalogImport {
  /** ISO 3166 alpha-2: every source answers for it, every area lies in it. */
  country_code: string;
  /** ISO 4217, of every price. */
  currency: string;
  sources: readonly {
    key: string;
    name: string;
    network: string;
    latency_ms: { min: number; max: number };
  }[];
  areas: readonly {
    key: string;
    name: string;
    /** Inclusive postal-code prefix ranges (`['1011', '1018']` covers `1016XA`). */
    postal_code_ranges: readonly (readonly [string, string])[];
    cities: readonly string[];
  }[];
  offers: readonly {
    /** A source key of the file. */
    source: string;
    /** Area keys of the file, or `'*'` for nationwide. */
    areas: '*' | readonly string[];
    technology_type: string;
    connection_type: string;
    bandwidth: { download: number; upload: number };
    prices: { readonly [contractTermMonths: string]: { mrc: number; nrc: number } };
  }[];
}

/** A source to register: an `http` supplier, or a `mef-sonata` seller with its `settings`. */
export type NewSource = Pick<
  SourceRow,
  | 'key'
  | 'name'
  | 'network'
  | 'type'
  | 'countryCodes'
  | 'enabled'
  | 'endpointUrl'
  | 'credentials'
  | 'timeoutMs'
  | 'concurrency'
> & { settings?: StoredSourceSettings | null };

/** What `replaceSourceSettings` writes: a `mef-sonata` source's settings, split as they are kept. */
export interface SourceSettingsUpdate {
  endpointUrl: string;
  /** The secret; null keeps the stored one. */
  credentials: string | null;
  settings: StoredSourceSettings;
}

/** An instance's own product, optional (an instance product) or added to every quote (a mandatory one). */
export interface InstanceProductRow {
  /** `mpr_…` for a mandatory product, `ipr_…` for another, so quotes cannot mix the two up. */
  id: string;
  instanceId: string;
  mandatory: boolean;
  name: string;
  description: string;
  /** Prices in integer minor units of `currency` (ISO 4217). */
  mrcMinor: number;
  nrcMinor: number;
  currency: string;
  /**
   * How its order lines are fulfilled (issue 49): `manual` (someone marks them completed or failed) or `none`
   * (nothing to deliver: completed when the order is placed).
   */
  fulfilment: InstanceProductFulfilment;
  createdAt: Date;
  updatedAt: Date;
}

/** An instance product to create; prices in integer minor units. */
export type NewInstanceProduct = Pick<
  InstanceProductRow,
  'mandatory' | 'name' | 'description' | 'mrcMinor' | 'nrcMinor' | 'currency' | 'fulfilment'
>;

/** The changes `updateInstanceProduct` may make; an absent field stays. */
export type InstanceProductChanges = Partial<
  Pick<InstanceProductRow, 'name' | 'description' | 'mrcMinor' | 'nrcMinor' | 'currency' | 'fulfilment'>
>;

/**
 * The catalogue and sources. Lists sort text by bytes (code points), ties by key or id, so both stores
 * return the same rows in the same order; "not the instance's" reads as not found.
 */
export interface CatalogOperations {
  /**
   * Imports a catalogue file into an instance, atomically: its sources (type `catalog`, enabled, answering
   * for the file's country), areas (with their postal-code ranges and cities, in file order) and offers
   * (one row per offer, area and contract term). This is the only write of offers, and they are never
   * changed afterwards: `catalogValueSets` keeps what it read on that promise.
   *
   * @returns counts of what was written.
   * @throws the database's unique violation when a source or area key already exists in the instance
   *   (nothing is written); Error for an offer of a source key the file does not declare.
   */
  importCatalog: (
    instanceId: string,
    catalog: CatalogImport,
    now: Date,
  ) => Promise<{ sources: number; areas: number; offers: number }>;
  /** An instance's enabled sources that answer for a country, by network, then name, then key. */
  listEnabledSources: (instanceId: string, countryCode: string) => Promise<SourceRow[]>;
  /**
   * The distinct technology types, connection types, bandwidths and contract terms offered by the given
   * sources, each ascending. Read once per list of source ids and database, then kept (offers never
   * change); the result is frozen and shared. No sources: every list empty, without a read.
   */
  catalogValueSets: (sourceIds: readonly string[]) => Promise<CatalogValueSets>;
  /**
   * Ids of an instance's catalogue areas that cover an address: with a postal code, every area of the
   * country whose prefix ranges hold it (by area key); without one, the first area (in catalogue order)
   * listing its city (case-insensitively); none without either.
   */
  coveringAreaIds: (
    instanceId: string,
    address: { countryCode: string; postalCode: string; city: string },
  ) => Promise<string[]>;
  /**
   * The offers of one source that are nationwide or in one of `areaIds`: by technology, connection type,
   * download, upload and term, ties nationwide first, then by area id and id.
   */
  listSourceOffers: (sourceId: string, areaIds: string[]) => Promise<CatalogOfferRow[]>;
  /**
   * Registers a source in an instance (no latency: it is not a catalogue source).
   * @throws the database's unique violation for a key taken in the instance (callers check first).
   */
  insertSource: (instanceId: string, input: NewSource, now: Date) => Promise<SourceRow>;
  /** Every source of an instance, by network, then name, then key. */
  listSources: (instanceId: string) => Promise<SourceRow[]>;
  /** Enables or disables a source of an instance; returns it, or undefined when it is not the instance's. */
  setSourceEnabled: (
    instanceId: string,
    id: string,
    enabled: boolean,
    now: Date,
  ) => Promise<SourceRow | undefined>;
  /**
   * Replaces the settings of a source of an instance and forgets its hub listeners (they were registered
   * for the settings before; the caller deletes them at the seller), atomically, the source locked against
   * a concurrent replace so that `previous` is the one replaced.
   *
   * @returns the source before and after, or undefined when it is not the instance's.
   */
  replaceSourceSettings: (
    instanceId: string,
    id: string,
    input: SourceSettingsUpdate,
    now: Date,
  ) => Promise<{ previous: SourceRow; source: SourceRow } | undefined>;
  /** A source's hub listeners as kept (see `StoredHubListeners`), or null (none, or no such source). */
  getSourceHubListeners: (sourceId: string) => Promise<StoredHubListeners | null>;
  /** Keeps (or, with null, forgets) a source's hub listeners; `updatedAt` stays: they are not its settings. */
  setSourceHubListeners: (sourceId: string, listeners: StoredHubListeners | null) => Promise<void>;
  /**
   * Creates instance products, atomically (all or none), with new ids by kind (`mpr_` mandatory, `ipr_`
   * other).
   * @returns the rows, in the order of `products`.
   */
  insertInstanceProducts: (
    instanceId: string,
    products: NewInstanceProduct[],
    now: Date,
  ) => Promise<InstanceProductRow[]>;
  /** Changes an instance product; returns the row, or undefined when it is not the instance's. */
  updateInstanceProduct: (
    instanceId: string,
    id: string,
    changes: InstanceProductChanges,
    now: Date,
  ) => Promise<InstanceProductRow | undefined>;
  /** An instance's products of one kind (`mandatory` or not), by name, then id. */
  listInstanceProducts: (instanceId: string, mandatory: boolean) => Promise<InstanceProductRow[]>;
  /** Those of `ids` that are products of the instance (any kind), by id; unknown ids are left out. */
  findInstanceProducts: (instanceId: string, ids: readonly string[]) => Promise<InstanceProductRow[]>;
}
