import { z } from 'zod';
import { type Role, roles, type Services } from '../context.js';
import {
  type CopiedTable,
  CopyMismatchError,
  copySqliteToPostgres,
  SourceNotSqliteError,
  TargetNotEmptyError,
} from '../db/copy/sqlite-to-postgres.js';
import type { InstanceProductRow, InstanceRow, PricePlanWithRules, SourceRow } from '../db/rows.js';
import { AppError, notFound } from '../errors.js';
import { demoCatalogPath, readCatalogFile } from '../gathering/sources/catalog-file.js';
import { hashCredential, newCredential } from './authentication.js';
import {
  demoInstanceProductsPath,
  importInstanceProducts,
  readInstanceProductFile,
} from './instance-products.js';
import {
  assignPricePlanInInstance,
  createPricePlanInInstance,
  createPricePlansForInstance,
  demoPricePlans,
  initialPricePlan,
} from './price-plans.js';
import { registerSourceInInstance, setSourceEnabledInInstance } from './sources.js';
import { parseInput } from './validation.js';

/*
 * Operator operations: run by whoever holds the database (the CLI, the first-start seed), so they take
 * the services rather than a viewer's context.
 */

const instanceInput = z.strictObject({
  name: z.string().trim().min(1).max(200),
  code: z.string().regex(/^[A-Z]{2,6}$/, 'must be 2–6 upper-case letters, e.g. ACM'),
  demoCatalog: z.boolean().default(false),
});

/**
 * Creates an instance (tenant) with its default price plan, optionally loading the NL demo catalogue with
 * its sources, the demo price plans (Standard as default, Partner discounted) and the demo instance and
 * mandatory products.
 * The instance, its plans and its catalogue are written in separate transactions; a failed import removes
 * nothing already there, and is reported.
 *
 * @throws {AppError} `VALIDATION` for a bad name or code; `CONFLICT` when the code is taken.
 */
export async function createInstance(
  services: Services,
  input: { name: string; code: string; demoCatalog?: boolean },
): Promise<{ instance: InstanceRow; catalog: { sources: number; areas: number; offers: number } | null }> {
  const { name, code, demoCatalog } = parseInput(instanceInput, input, 'The instance is invalid.');
  if (await services.db.findInstance(code)) throw new AppError('CONFLICT', `Instance code ${code} is taken.`);
  const now = services.clock.now();
  const instance = await services.db.insertInstance({ name, code, now });
  await createPricePlansForInstance(
    services,
    instance.id,
    demoCatalog ? demoPricePlans() : [initialPricePlan],
  );
  if (demoCatalog) {
    await importInstanceProducts(services, instance.id, readInstanceProductFile(demoInstanceProductsPath));
  }
  const catalog = demoCatalog
    ? await services.db.importCatalog(instance.id, readCatalogFile(demoCatalogPath), now)
    : null;
  return { instance, catalog };
}

const applicationInput = z.strictObject({
  instance: z.string().min(1),
  name: z.string().trim().min(1).max(200).default('API client'),
  roles: z.array(z.enum(roles)).min(1, 'give at least one role'),
});

/**
 * Creates client credentials (an application and its service-account user) in an instance.
 * The secret is returned once and stored only as a hash.
 *
 * @param input.instance the instance's id or code.
 * @throws {AppError} `VALIDATION` for unknown roles; `NOT_FOUND` for an unknown instance.
 */
export async function createApplication(
  services: Services,
  input: { instance: string; name?: string; roles: string[] },
): Promise<{ clientId: string; clientSecret: string; instanceId: string; roles: Role[] }> {
  const parsed = parseInput(applicationInput, input, 'The application is invalid.');
  const instance = await requireInstance(services, parsed.instance);
  const clientId = `cli_${newCredential().slice(0, 24)}`;
  const clientSecret = newCredential();
  await services.db.insertApplication({
    instanceId: instance.id,
    name: parsed.name,
    roles: parsed.roles,
    clientId,
    clientSecretHash: hashCredential(clientSecret),
    now: services.clock.now(),
  });
  return { clientId, clientSecret, instanceId: instance.id, roles: parsed.roles };
}

/**
 * The price plans of an instance, for an operator.
 * @throws {AppError} `NOT_FOUND` for an unknown instance.
 */
export async function listInstancePricePlans(
  services: Services,
  instance: string,
): Promise<PricePlanWithRules[]> {
  const found = await services.db.findInstance(instance);
  if (!found) throw notFound('Instance', instance);
  return services.db.listPricePlans(found.id);
}

/**
 * Creates a price plan in an instance, for an operator.
 * @param input as GraphQL's `CreatePricePlanInput` (markups in percent).
 * @throws {AppError} `NOT_FOUND` for an unknown instance; otherwise as `createPricePlanInInstance`.
 */
export async function createInstancePricePlan(
  services: Services,
  instance: string,
  input: unknown,
): Promise<PricePlanWithRules> {
  return createPricePlanInInstance(services, (await requireInstance(services, instance)).id, input);
}

/**
 * Assigns a plan to a customer of an instance, for an operator.
 * @throws {AppError} `NOT_FOUND` for an unknown instance, plan or customer.
 */
export async function assignInstancePricePlan(
  services: Services,
  input: { instance: string; customerId: string; pricePlanId: string },
): Promise<{ customerId: string; pricePlanId: string }> {
  const { id } = await requireInstance(services, input.instance);
  return assignPricePlanInInstance(services, id, {
    customerId: input.customerId,
    pricePlanId: input.pricePlanId,
  });
}

async function requireInstance(services: Services, instance: string): Promise<InstanceRow> {
  const found = await services.db.findInstance(instance);
  if (!found) throw notFound('Instance', instance);
  return found;
}

/**
 * Imports instance and mandatory products from a file into an instance (CLI), in one transaction.
 * @throws {AppError} `NOT_FOUND` for an unknown instance; the file's format errors as zod errors.
 */
export async function importInstanceProductFile(
  services: Services,
  instance: string,
  path: string,
): Promise<InstanceProductRow[]> {
  const { id } = await requireInstance(services, instance);
  return importInstanceProducts(services, id, readInstanceProductFile(path));
}

/** The sources of an instance, for an operator. @throws {AppError} `NOT_FOUND` for an unknown instance. */
export async function listInstanceSources(services: Services, instance: string): Promise<SourceRow[]> {
  return services.db.listSources((await requireInstance(services, instance)).id);
}

/**
 * Registers an `http` source in an instance, for an operator.
 * @throws {AppError} `NOT_FOUND` for an unknown instance; otherwise as `registerSourceInInstance`.
 */
export async function registerInstanceSource(
  services: Services,
  instance: string,
  input: unknown,
): Promise<SourceRow> {
  return registerSourceInInstance(services, (await requireInstance(services, instance)).id, input);
}

/**
 * Enables or disables a source of an instance, for an operator.
 * @throws {AppError} `NOT_FOUND` for an unknown instance or source.
 */
export async function setInstanceSourceEnabled(
  services: Services,
  input: { instance: string; sourceId: string; enabled: boolean },
): Promise<SourceRow> {
  const { id } = await requireInstance(services, input.instance);
  return setSourceEnabledInInstance(services, id, input.sourceId, input.enabled);
}

const postgresTarget = z.strictObject({
  to: z.string().regex(/^postgres(ql)?:\/\/\S+$/, 'must be a postgres:// or postgresql:// URL'),
});

/**
 * Copies the service's SQLite database into an empty PostgreSQL database — for a deployment that outgrows
 * the embedded default (issue 16, "Moving up without losing data"); see {@link copySqliteToPostgres}.
 * The source may be in use by a running service: it is read as of one moment.
 *
 * @returns each table's rows and checksum, equal in both databases.
 * @throws {AppError} `VALIDATION` for a target that is not a `postgres://` URL; `CONFLICT` when the target
 *   holds rows; `INTERNAL` when the copy read back differs (nothing is committed).
 */
export async function copyDatabaseToPostgres(
  services: Services,
  input: { to: string },
): Promise<CopiedTable[]> {
  const { to } = parseInput(postgresTarget, input, 'The target database is invalid.');
  try {
    return await copySqliteToPostgres(services.db, to);
  } catch (error) {
    if (error instanceof SourceNotSqliteError) throw new AppError('CONFLICT', error.message);
    if (error instanceof TargetNotEmptyError) throw new AppError('CONFLICT', error.message);
    if (error instanceof CopyMismatchError) throw new AppError('INTERNAL', error.message);
    throw error;
  }
}
