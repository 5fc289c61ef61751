// How values from the API read on the page: dates, money, bandwidth, terms, addresses and statuses.

/** Visible names of a request's `status`. */
export const STATUS_LABELS = { pending: 'Pending', in_progress: 'In progress', completed: 'Completed' };

const dateFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
const numberFormat = new Intl.NumberFormat(undefined, { maximumFractionDigits: 2 });
/** @type {Map<string, Intl.NumberFormat>} */
const moneyFormats = new Map();
let regionNames = null;
try {
  regionNames = new Intl.DisplayNames(undefined, { type: 'region' });
} catch {
  regionNames = null;
}

/**
 * The country's name in the browser's language, or the code where the browser has no names.
 * @param {string} code ISO 3166-1 alpha-2
 */
export function countryName(code) {
  return regionNames?.of(code) ?? code;
}

/**
 * A timestamp as a medium date and a short time in the browser's locale; the input when unparseable.
 * @param {string} iso
 */
export function formatDate(iso) {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : dateFormat.format(date);
}

/**
 * An amount in its currency (a plain two-decimal number when the browser does not know the currency).
 * @param {number} amount
 * @param {string} currency ISO 4217
 */
export function formatMoney(amount, currency) {
  let format = moneyFormats.get(currency);
  if (!format) {
    try {
      format = new Intl.NumberFormat(undefined, { style: 'currency', currency });
    } catch {
      format = new Intl.NumberFormat(undefined, { minimumFractionDigits: 2, maximumFractionDigits: 2 });
    }
    moneyFormats.set(currency, format);
  }
  return format.format(amount);
}

/**
 * Bandwidth in kbps as "100/10 Mbit/s" (or Gbit/s when both directions are whole gigabits).
 * @param {{download: number, upload: number}} bandwidth
 */
export function formatBandwidth(bandwidth) {
  const { download, upload } = bandwidth;
  if (
    download >= 1_000_000 &&
    upload >= 1_000_000 &&
    download % 1_000_000 === 0 &&
    upload % 1_000_000 === 0
  ) {
    return `${numberFormat.format(download / 1_000_000)}/${numberFormat.format(upload / 1_000_000)} Gbit/s`;
  }
  return `${numberFormat.format(download / 1000)}/${numberFormat.format(upload / 1000)} Mbit/s`;
}

/**
 * A contract term, e.g. "36 months".
 * @param {number} months
 */
export function formatTerm(months) {
  return `${months} months`;
}

/** @param {number} value */
function formatCoordinate(value) {
  return Number(value).toFixed(5);
}

/**
 * The two display lines of an address record: fields, or the coordinates it was given as.
 * @returns {{primary: string, secondary: string, coordinates: boolean}}
 */
export function addressLines(address) {
  const a = address ?? {};
  const number = [a.house_number, a.house_number_addition].filter(Boolean).join(' ');
  const place = [a.city, a.country_code].filter(Boolean).join(', ');
  if (!a.street && !a.postal_code && !a.house_number && a.coordinates) {
    return {
      primary: `${formatCoordinate(a.coordinates.latitude)}, ${formatCoordinate(a.coordinates.longitude)}`,
      secondary: place ? `Near ${place}` : 'Coordinates',
      coordinates: true,
    };
  }
  if (!a.street) {
    return {
      primary: [a.postal_code, number].filter(Boolean).join(' ') || 'Address',
      secondary: place,
      coordinates: false,
    };
  }
  return {
    primary: [a.street, number].filter(Boolean).join(' '),
    secondary: [[a.postal_code, a.city].filter(Boolean).join(' '), a.country_code].filter(Boolean).join(', '),
    coordinates: false,
  };
}

/** A short text of the filters a request was made with, or "" without any. */
export function filtersSummary(filters) {
  if (!filters) return '';
  const parts = [
    ...(filters.networks ?? []),
    ...(filters.technology_types ?? []),
    ...(filters.connection_types ?? []),
    ...(filters.bandwidths ?? []).map(formatBandwidth),
    ...(filters.contract_terms ?? []).map(formatTerm),
  ];
  return parts.join(' · ');
}

/**
 * A `networks_progress_percentage` (a decimal string) as a number from 0 to 100; 0 when unparseable.
 * @param {string} value
 */
export function percentOf(value) {
  const number = Number.parseFloat(value);
  return Number.isFinite(number) ? Math.min(100, Math.max(0, number)) : 0;
}

/** Visible names of an order's and an order line's `status`. */
export const ORDER_STATUS_LABELS = {
  pending: 'Pending',
  submitted: 'Submitted',
  in_progress: 'In progress',
  completed: 'Completed',
  partially_completed: 'Partially completed',
  failed: 'Failed',
  cancelled: 'Cancelled',
};

/** The order statuses that end an order: nothing moves it again. */
export const FINAL_ORDER_STATUSES = ['completed', 'partially_completed', 'failed', 'cancelled'];

/** Visible names of a line's `cancellation.state`. */
export const CANCELLATION_LABELS = {
  requested: 'Cancellation requested',
  acknowledged: 'Cancellation acknowledged by the seller',
  assessing_charge: 'Seller asks a cancellation charge',
  done: 'Cancelled',
  declined: 'The seller declined to cancel',
  rejected: 'The seller rejected the cancellation',
};

/** Visible names of a charge's MEF `state` (an answered one, `completed`, reads as its items' answers). */
export const CHARGE_STATE_LABELS = {
  awaitingResponse: 'Awaiting your answer',
  completed: 'Answered',
  timeout: 'Not answered in time',
};

/**
 * A calendar date (`YYYY-MM-DD`) as a medium date in the browser's locale, read as that day in UTC.
 * @param {string} day
 */
export function formatDay(day) {
  const date = new Date(`${day}T00:00:00Z`);
  return Number.isNaN(date.getTime())
    ? day
    : new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeZone: 'UTC' }).format(date);
}

/**
 * A MEF camelCase word (`inProgress`, `held.assessingCharge`) as words: "in progress", "held, assessing charge".
 * @param {string} value
 */
export function mefWords(value) {
  return value
    .replace(/\./g, ', ')
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .toLowerCase();
}
