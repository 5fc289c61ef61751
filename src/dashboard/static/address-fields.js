// The country, address and coordinate inputs of the new-request form: address fields rendered from the
// options endpoint, every input validated in the browser with the endpoint's patterns and ranges.

import { $, h } from './dom.js';
import { countryName } from './format.js';

const COUNTRIES = ['NL', 'BE', 'DE', 'GB', 'FR'];
const DEFAULT_COUNTRY = 'NL';
/** Example values shown as placeholders and in validation messages. */
const EXAMPLES = {
  NL: { postal_code: '1016 XA', house_number: '206', street: 'Lijnbaansgracht', city: 'Amsterdam' },
  BE: { postal_code: '1000', house_number: '12', street: 'Wetstraat', city: 'Brussel' },
  DE: { postal_code: '10115', house_number: '5', street: 'Invalidenstraße', city: 'Berlin' },
  GB: { postal_code: 'SW1A1AA', house_number: '10', street: 'Downing Street', city: 'London' },
  FR: { postal_code: '75001', house_number: '1', street: 'Rue de Rivoli', city: 'Paris' },
};
/** Address fields in reading order; the options endpoint decides which exist and which are required. */
const FIELD_ORDER = ['street', 'house_number', 'house_number_addition', 'postal_code', 'city'];
const AUTOCOMPLETE = {
  street: 'address-line1',
  house_number: 'off',
  house_number_addition: 'off',
  postal_code: 'postal-code',
  city: 'address-level2',
};
/** Shorter visible labels where the options endpoint's name is long (the full name stays for screen readers). */
const SHORT_LABELS = { house_number_addition: 'Addition' };
const COORDINATES = ['latitude', 'longitude'];

/** Fills the country select (the default selected) and wires the switch to coordinates and their inputs. */
export function bindAddressFields() {
  const select = /** @type {HTMLSelectElement} */ ($('country'));
  select.replaceChildren(
    ...COUNTRIES.map((code) =>
      h('option', { value: code, selected: code === DEFAULT_COUNTRY }, countryName(code)),
    ),
  );
  select.value = DEFAULT_COUNTRY;
  $('use-coordinates').addEventListener('change', toggleCoordinates);
  for (const id of COORDINATES) {
    const input = /** @type {HTMLInputElement} */ ($(id));
    input.dataset.label = id === 'latitude' ? 'Latitude' : 'Longitude';
    input.addEventListener('blur', () => validateInput(input));
  }
}

/** The selected country's code. */
export function currentCountry() {
  return /** @type {HTMLSelectElement} */ ($('country')).value || DEFAULT_COUNTRY;
}

/** Whether the request is made with coordinates instead of an address. */
export function usingCoordinates() {
  return /** @type {HTMLInputElement} */ ($('use-coordinates')).checked;
}

/** The inputs that make up the address as the form stands: the address fields, or the coordinates. */
export function addressInputs() {
  return usingCoordinates()
    ? COORDINATES.map((id) => /** @type {HTMLInputElement} */ ($(id)))
    : [.../** @type {NodeListOf<HTMLInputElement>} */ ($('address-fields').querySelectorAll('input'))];
}

/** An HTML `pattern` for a regex, when it compiles the way browsers compile patterns (`v` flag). */
function htmlPattern(regex) {
  const body = regex.replace(/^\^/, '').replace(/\$$/, '');
  try {
    new RegExp(`^(?:${body})$`, 'v');
    return body;
  } catch {
    return null;
  }
}

/** @param {string} regex */
function compile(regex) {
  try {
    return new RegExp(regex);
  } catch {
    return null;
  }
}

/**
 * Renders the address inputs of a country from the options endpoint's `filters.fields`, in reading
 * order, keeping what was typed in fields that stay.
 * @param {string} country
 * @param {{key: string, name: string, regex: string, required: boolean}[]} fields
 */
export function renderAddressFields(country, fields) {
  const container = $('address-fields');
  const values = new Map();
  for (const input of container.querySelectorAll('input')) values.set(input.name, input.value);
  const byKey = new Map(
    fields.filter((field) => field.key !== 'country_code').map((field) => [field.key, field]),
  );
  const keys = [
    ...FIELD_ORDER.filter((key) => byKey.has(key)),
    ...[...byKey.keys()].filter((key) => !FIELD_ORDER.includes(key)),
  ];
  const examples = EXAMPLES[country] ?? {};
  const disabled = usingCoordinates();
  container.replaceChildren(
    ...keys.map((key) => {
      const field = byKey.get(key);
      const id = `field-${key}`;
      const pattern = htmlPattern(field.regex);
      const input = h('input', {
        id,
        name: key,
        type: 'text',
        autocomplete: AUTOCOMPLETE[key] ?? 'off',
        required: field.required,
        pattern,
        placeholder: examples[key] ? `e.g. ${examples[key]}` : null,
        'aria-describedby': `${id}-error`,
        'aria-invalid': 'false',
        'data-testid': `field-${key}`,
        'data-regex': field.regex,
        'data-label': field.name,
        disabled,
      });
      input.value = values.get(key) ?? '';
      input.addEventListener('blur', () => validateInput(input));
      input.addEventListener('input', () => {
        if (input.getAttribute('aria-invalid') === 'true') validateInput(input);
      });
      return h(
        'div',
        { class: `field field-${key}` },
        h(
          'label',
          { for: id },
          SHORT_LABELS[key]
            ? [
                h('span', { class: 'visually-hidden', text: field.name }),
                h('span', { 'aria-hidden': 'true', text: SHORT_LABELS[key] }),
              ]
            : field.name,
          field.required
            ? h('span', { class: 'required', title: 'required', 'aria-hidden': 'true', text: ' *' })
            : h('span', { class: 'optional', text: ' (optional)' }),
        ),
        input,
        h('p', { class: 'field-error', id: `${id}-error`, 'data-testid': `error-${key}` }),
      );
    }),
  );
}

/**
 * Validates one address or coordinate input; shows and returns its message ("" when valid).
 * @param {HTMLInputElement} input
 */
export function validateInput(input) {
  const value = input.value.trim();
  const label = input.dataset.label ?? input.name;
  let message = '';
  if (input.disabled) message = '';
  else if (value === '') {
    if (input.required) message = `${label} is required.`;
  } else if (input.type === 'number') {
    const number = Number(value);
    const min = Number(input.min);
    const max = Number(input.max);
    if (!Number.isFinite(number) || number < min || number > max) {
      message = `${label} must be a number from ${min} to ${max}.`;
    }
  } else {
    const regex = input.dataset.regex ? compile(input.dataset.regex) : null;
    if (regex && !regex.test(value)) {
      const example = EXAMPLES[currentCountry()]?.[input.name];
      message = example ? `${label} must look like ${example}.` : `${label} is not in the expected format.`;
    }
  }
  input.setCustomValidity(message);
  input.setAttribute('aria-invalid', message ? 'true' : 'false');
  const error = document.getElementById(`${input.id}-error`);
  if (error) error.textContent = message;
  return message;
}

/** Shows either the address fields or the coordinates, and enables only the inputs shown. */
function toggleCoordinates() {
  const coordinates = usingCoordinates();
  $('coordinate-fields').hidden = !coordinates;
  $('address-fields').hidden = coordinates;
  for (const input of $('address-fields').querySelectorAll('input')) {
    input.disabled = coordinates;
    if (coordinates) validateInput(input);
  }
  for (const id of COORDINATES) {
    const input = /** @type {HTMLInputElement} */ ($(id));
    input.disabled = !coordinates;
    input.required = coordinates;
    input.dataset.label = id === 'latitude' ? 'Latitude' : 'Longitude';
    if (!coordinates) validateInput(input);
  }
}

/**
 * Shows the server's field errors (`/0/address/postal_code`) next to their inputs.
 * @param {{path?: string, message?: string}[]} errors the problem document's `errors`
 */
export function showFieldErrors(errors) {
  for (const item of errors) {
    const match = /^\/0\/address\/(?:coordinates\/)?([a-z_]+)$/.exec(item.path ?? '');
    if (!match) continue;
    const key = match[1];
    const input = /** @type {HTMLInputElement | null} */ (
      key === 'latitude' || key === 'longitude' ? $(key) : document.getElementById(`field-${key}`)
    );
    if (!input) continue;
    input.setAttribute('aria-invalid', 'true');
    const box = document.getElementById(`${input.id}-error`);
    if (box) box.textContent = item.message ?? '';
  }
}

/** Empties every address and coordinate input and its error. */
export function clearAddressFields() {
  for (const input of $('address-fields').querySelectorAll('input')) {
    input.value = '';
    input.setCustomValidity('');
    input.setAttribute('aria-invalid', 'false');
  }
  for (const id of COORDINATES) /** @type {HTMLInputElement} */ ($(id)).value = '';
  for (const error of document.querySelectorAll('#request-form .field-error')) error.textContent = '';
}
