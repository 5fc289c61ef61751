// How often the dashboard asks again, and how much it asks for at a time.

/** Requests per page of the list. */
export const PAGE_SIZE = 25;
/** Poll the list this often while a visible request is still gathering. */
export const POLL_MS = 5_000;
/** …and this often while the event stream is down, to see requests made elsewhere. */
export const SLOW_POLL_MS = 30_000;
/** Wait this long before reconnecting to the event stream; doubled after each failure… */
export const RECONNECT_MIN_MS = 2_000;
/** …up to this. */
export const RECONNECT_MAX_MS = 60_000;
