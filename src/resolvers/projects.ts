import { z } from 'zod';
import type { Context } from '../context.js';
import type { ProjectRecord } from '../db/rows.js';
import { notFound, validationError } from '../errors.js';
import { requireViewer } from './authentication.js';
import { customerRoles } from './customers.js';
import { type Pagination, pageInput, pageOffset, pagination } from './pagination.js';
import { parseInput } from './validation.js';

export const projectInput = z.strictObject({
  customerId: z.string().min(1, 'is required').max(100),
  name: z.string().trim().min(1, 'is required').max(200),
});

/**
 * Creates a project for one of the caller's customers.
 * @throws {AppError} `VALIDATION` for a missing name or a customer that is not the caller's (path `/customerId`).
 */
export async function createProject(ctx: Context, input: unknown): Promise<ProjectRecord> {
  const viewer = requireViewer(ctx, customerRoles);
  const { customerId, name } = parseInput(
    projectInput,
    input,
    'The project is invalid; nothing was created.',
  );
  const customer = await ctx.db.findCustomer(viewer.instanceId, customerId);
  if (!customer) {
    throw validationError(
      [{ path: '/customerId', message: 'customer was not found' }],
      'The project is invalid; nothing was created.',
    );
  }
  const project = await ctx.db.insertProject({
    instanceId: viewer.instanceId,
    customerId,
    name,
    now: ctx.clock.now(),
  });
  return { project, customerName: customer.customer.name };
}

/**
 * A page of the caller's projects, optionally of one customer, oldest first.
 * @throws {AppError} `NOT_FOUND` when `customerId` is not one of the caller's customers.
 */
export async function listProjects(
  ctx: Context,
  input: { customerId?: unknown; page?: unknown; pageSize?: unknown },
): Promise<{ projects: ProjectRecord[]; pagination: Pagination }> {
  const viewer = requireViewer(ctx, customerRoles);
  const { customerId, ...page } = parseInput(
    pageInput.extend({ customerId: z.string().max(100).nullish() }),
    input,
    'The list parameters are invalid.',
  );
  if (customerId && !(await ctx.db.findCustomer(viewer.instanceId, customerId)))
    throw notFound('Customer', customerId);
  const { rows, total } = await ctx.db.listProjectsPage(viewer.instanceId, {
    customerId: customerId ?? null,
    offset: pageOffset(page),
    limit: page.pageSize,
  });
  return { projects: rows, pagination: pagination(page, total) };
}

/** One of the caller's projects with its customer's name, or null (also for another instance's id). */
export async function findProjectForViewer(ctx: Context, id: string): Promise<ProjectRecord | null> {
  const viewer = requireViewer(ctx, customerRoles);
  const project = await ctx.db.findProject(viewer.instanceId, id);
  if (!project) return null;
  const customer = await ctx.db.findCustomer(viewer.instanceId, project.customerId);
  return { project, customerName: customer?.customer.name ?? '' };
}
