// The new-request form: loads the selected country's fields and filters, checks the input, and posts
// one availability request.

import {
  addressInputs,
  bindAddressFields,
  clearAddressFields,
  currentCountry,
  renderAddressFields,
  showFieldErrors,
  usingCoordinates,
  validateInput,
} from './address-fields.js';
import { ApiError, api, SignedOutError } from './api.js';
import { $, h } from './dom.js';
import { renderFilters, selectedFilters } from './filters.js';
import { showError } from './problems.js';
import { loadList } from './requests-list.js';
import { state } from './state.js';

/** Fills the country select and wires the form: a country change reloads its fields, submit posts. */
export function bindRequestForm() {
  bindAddressFields();
  const select = /** @type {HTMLSelectElement} */ ($('country'));
  select.addEventListener('change', () => {
    $('request-error').hidden = true;
    for (const error of $('address-fields').querySelectorAll('.field-error')) error.textContent = '';
    loadOptions(select.value);
  });
  $('request-form').addEventListener('submit', onSubmitRequest);
}

/** Loads the selected country's fields and filters, unless they are loaded already. */
export function loadOptionsOnce() {
  if (!state.options) loadOptions(/** @type {HTMLSelectElement} */ ($('country')).value);
}

/** @param {string} country */
async function loadOptions(country) {
  const seq = ++state.optionsSeq;
  const container = $('address-fields');
  container.setAttribute('aria-busy', 'true');
  try {
    const document = await api(
      'GET',
      `/availability-requests/options?country_code=${encodeURIComponent(country)}`,
    );
    if (seq !== state.optionsSeq) return;
    state.options = document.data;
    renderAddressFields(country, document.data?.filters?.fields ?? []);
    renderFilters(document.data?.filters?.filters ?? {});
  } catch (error) {
    if (error instanceof SignedOutError || seq !== state.optionsSeq) return;
    const box = h('div', { class: 'form-error', role: 'alert' });
    showError(box, error);
    container.replaceChildren(box);
  } finally {
    if (seq === state.optionsSeq) container.setAttribute('aria-busy', 'false');
  }
}

/** Builds the one-element body of `POST /availability-requests`, or null when a field is invalid. */
function buildRequest() {
  const inputs = addressInputs();
  const invalid = inputs.filter((input) => validateInput(input) !== '');
  if (invalid.length > 0) {
    invalid[0]?.focus();
    return null;
  }
  let address;
  if (usingCoordinates()) {
    address = {
      coordinates: {
        latitude: Number(/** @type {HTMLInputElement} */ ($('latitude')).value),
        longitude: Number(/** @type {HTMLInputElement} */ ($('longitude')).value),
      },
    };
  } else {
    address = { country_code: currentCountry() };
    for (const input of inputs) {
      const value = input.value.trim();
      if (value !== '') address[input.name] = value;
    }
  }
  return [{ address, ...selectedFilters() }];
}

async function onSubmitRequest(event) {
  event.preventDefault();
  const errorBox = $('request-error');
  const message = $('request-message');
  errorBox.hidden = true;
  message.textContent = '';
  const body = buildRequest();
  if (!body) {
    errorBox.replaceChildren(
      h('p', { class: 'form-error-title', text: 'Please correct the highlighted fields.' }),
    );
    errorBox.hidden = false;
    return;
  }
  const button = /** @type {HTMLButtonElement} */ ($('request-submit'));
  button.disabled = true;
  button.textContent = 'Submitting…';
  try {
    const document = await api('POST', '/availability-requests', body);
    for (const created of document.data ?? []) state.justCreated.add(created.id);
    message.textContent = document.message ?? 'Availability request created.';
    clearAddressFields();
    state.page = 1;
    await loadList();
  } catch (error) {
    if (error instanceof SignedOutError) return;
    showError(errorBox, error);
    if (error instanceof ApiError && Array.isArray(error.problem?.errors)) {
      showFieldErrors(error.problem.errors);
    }
  } finally {
    button.disabled = false;
    button.textContent = 'Check availability';
  }
}
