/*
 * PLACEHOLDER (issue 33, being rewritten by hand): The catalogue and sources: imported offers, value sets, sources and their settings, instance products.
 * Derived from the SQLite queries until this file states the contract itself.
 */

import type * as catalog from '../sqlite/queries/catalog.js';
import type * as instance_products from '../sqlite/queries/instance-products.js';
import type { Operation } from './operation.js';

export type {
  CatalogOfferRow,
  CatalogValueSets,
  NewSource,
  SourceRow,
  SourceSettingsUpdate,
} from '../sqlite/queries/catalog.js';
export type { InstanceProductRow, NewInstanceProduct } from '../sqlite/queries/instance-products.js';

/** The catalogue and sources: imported offers, value sets, sources and their settings, instance products. */
export type CatalogOperations = {
  importCatalog: Operation<typeof catalog.importCatalog>;
  listEnabledSources: Operation<typeof catalog.listEnabledSources>;
  catalogValueSets: Operation<typeof catalog.catalogValueSets>;
  coveringAreaIds: Operation<typeof catalog.coveringAreaIds>;
  listSourceOffers: Operation<typeof catalog.listSourceOffers>;
  insertSource: Operation<typeof catalog.insertSource>;
  listSources: Operation<typeof catalog.listSources>;
  setSourceEnabled: Operation<typeof catalog.setSourceEnabled>;
  replaceSourceSettings: Operation<typeof catalog.replaceSourceSettings>;
  getSourceHubListeners: Operation<typeof catalog.getSourceHubListeners>;
  setSourceHubListeners: Operation<typeof catalog.setSourceHubListeners>;
  insertInstanceProducts: Operation<typeof instance_products.insertInstanceProducts>;
  updateInstanceProduct: Operation<typeof instance_products.updateInstanceProduct>;
  listInstanceProducts: Operation<typeof instance_products.listInstanceProducts>;
  findInstanceProducts: Operation<typeof instance_products.findInstanceProducts>;
};
