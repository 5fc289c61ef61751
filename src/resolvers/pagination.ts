import { z } from 'zod';

/** Default and largest page size of REST lists (DESIGN.md, "Pagination"). */
export const DEFAULT_PAGE_SIZE = 25;
export const MAX_PAGE_SIZE = 100;

/** `page` (1-based, default 1) and `pageSize` (1–100, default 25); query-string values are coerced. */
export const pageInput = z.object({
  page: z.coerce.number().int().min(1).default(1),
  pageSize: z.coerce.number().int().min(1).max(MAX_PAGE_SIZE).default(DEFAULT_PAGE_SIZE),
});

/** Page numbers of a list page; `totalPages` = ceil(totalItems / pageSize). */
export interface Pagination {
  pageSize: number;
  currentPage: number;
  totalItems: number;
  totalPages: number;
}

/** The pagination object for a page of a list of `totalItems`. */
export function pagination(page: { page: number; pageSize: number }, totalItems: number): Pagination {
  return {
    pageSize: page.pageSize,
    currentPage: page.page,
    totalItems,
    totalPages: Math.ceil(totalItems / page.pageSize),
  };
}

/** The row offset of a page. */
export function pageOffset(page: { page: number; pageSize: number }): number {
  return (page.page - 1) * page.pageSize;
}
