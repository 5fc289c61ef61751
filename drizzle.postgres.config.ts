import { defineConfig } from 'drizzle-kit';

/** The PostgreSQL store's tables and migrations, beside the SQLite ones of `drizzle.config.ts`. */
export default defineConfig({
  dialect: 'postgresql',
  schema: './src/db/postgres/schema/index.ts',
  out: './src/db/postgres/migrations',
  casing: 'snake_case',
});
