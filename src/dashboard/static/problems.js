// How a failed call reads to the user: a problem+json document's detail and its field errors, or a
// network failure.

import { ApiError } from './api.js';
import { h } from './dom.js';

/**
 * The text of an error: its problem+json detail and each `errors[]` entry.
 * @param {unknown} error an ApiError, or anything else a failed call threw
 * @returns {{detail: string, items: string[]}}
 */
export function problemMessages(error) {
  if (error instanceof ApiError) {
    const problem = error.problem ?? {};
    const detail = problem.detail || problem.title || error.message;
    const items = Array.isArray(problem.errors)
      ? problem.errors.map((item) => `${item.path ? `${item.path}: ` : ''}${item.message ?? ''}`)
      : [];
    return { detail, items };
  }
  return { detail: 'The service could not be reached. Check your connection and try again.', items: [] };
}

/**
 * Shows an error (problem+json or network) in a container and unhides it.
 * @param {HTMLElement} container
 * @param {unknown} error
 */
export function showError(container, error) {
  const { detail, items } = problemMessages(error);
  container.replaceChildren(
    h('p', { class: 'form-error-title', text: detail }),
    items.length > 0
      ? h(
          'ul',
          { class: 'form-error-list' },
          items.map((item) => h('li', { text: item })),
        )
      : null,
  );
  container.hidden = false;
}
