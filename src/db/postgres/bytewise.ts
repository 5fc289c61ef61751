import { type Column, type SQL, sql } from 'drizzle-orm';

/**
 * A text column compared byte by byte (`column COLLATE "C"`), as SQLite's BINARY collation compares text.
 * The database's default collation may be a linguistic one (`en_US.UTF-8`), which would order names and ids
 * differently from SQLite and break keyset cursors handed out by either store; orders and keyset bounds
 * therefore never depend on it.
 */
export const bytewise = (column: Column): SQL<string> => sql<string>`${column} collate "C"`;
