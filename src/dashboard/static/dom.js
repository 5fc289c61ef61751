// Small DOM helpers: element lookup and creation, screen-reader announcements, one-shot animations.

/**
 * The element with this id; the page's ids are fixed in index.html, so it exists.
 * @param {string} id
 */
export const $ = (id) => /** @type {HTMLElement} */ (document.getElementById(id));

/**
 * Creates an element. Text goes through textContent only: nothing from the API is parsed as HTML.
 * @param {string} tag
 * @param {Record<string, any>} [props] `class`, `text`, `on<event>` listeners, or attributes
 *   (`true` sets an empty attribute; `null`, `undefined` and `false` leave it out)
 * @param {...any} children nodes or strings, arrays flattened, empty values skipped
 */
export function h(tag, props = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (value === null || value === undefined || value === false) continue;
    if (key === 'class') el.className = value;
    else if (key === 'text') el.textContent = value;
    else if (key.startsWith('on') && typeof value === 'function') el.addEventListener(key.slice(2), value);
    else el.setAttribute(key, value === true ? '' : String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : String(child));
  }
  return el;
}

/**
 * Reads a message to screen readers through the page's polite live region.
 * @param {string} message
 */
export function announce(message) {
  const announcer = $('announcer');
  announcer.textContent = '';
  requestAnimationFrame(() => {
    announcer.textContent = message;
  });
}

/**
 * Plays a class's animation on an element, from the start even when it already has the class.
 * @param {Element} element
 * @param {string} className
 */
export function flash(element, className) {
  element.classList.remove(className);
  // Restart the animation: reading layout between remove and add.
  void (/** @type {HTMLElement} */ (element).offsetWidth);
  element.classList.add(className);
}

/**
 * Runs `render`, which replaces elements, and puts the focus back on the new element with the same
 * `data-focus-key` as the focused one had (a button of a charge, say), so a live update does not lose it.
 * @param {() => void} render
 */
export function keepFocus(render) {
  const focused = document.activeElement;
  const key = focused instanceof HTMLElement ? focused.dataset.focusKey : undefined;
  render();
  if (!key || document.activeElement === focused) return;
  const again = document.querySelector(`[data-focus-key="${CSS.escape(key)}"]`);
  if (again instanceof HTMLElement) again.focus();
}
