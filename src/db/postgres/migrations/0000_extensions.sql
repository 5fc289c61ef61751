-- Trigram indexes serve the customer name filter, a case-insensitive substring match (`%acme%`).
CREATE EXTENSION IF NOT EXISTS pg_trgm;
