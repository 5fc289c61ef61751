import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { drizzle } from 'drizzle-orm/better-sqlite3';
import { migrate } from 'drizzle-orm/better-sqlite3/migrator';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { closeDatabase, openDatabase } from '../../../src/db/sqlite/client.js';

const migrationsFolder = fileURLToPath(new URL('../../../src/db/sqlite/migrations', import.meta.url));

/** A copy of the committed migrations up to and including `last` (its journal trimmed to match). */
function migrationsUpTo(directory: string, last: string): string {
  const folder = join(directory, 'migrations');
  cpSync(migrationsFolder, folder, { recursive: true });
  const journalPath = join(folder, 'meta', '_journal.json');
  const journal = JSON.parse(readFileSync(journalPath, 'utf8')) as { entries: { tag: string }[] };
  const end = journal.entries.findIndex((entry) => entry.tag === last);
  expect(end).toBeGreaterThanOrEqual(0);
  writeFileSync(journalPath, JSON.stringify({ ...journal, entries: journal.entries.slice(0, end + 1) }));
  return folder;
}

describe('migration 0002_task_rowid', () => {
  let directory: string;
  let path: string;
  beforeEach(() => {
    directory = mkdtempSync(join(tmpdir(), 'gateway-migrations-'));
    path = join(directory, 'gateway.db');
  });
  afterEach(() => rmSync(directory, { recursive: true, force: true }));

  /** A database at 0001 with one request, two tasks (TypeID keys) and products of both. */
  function databaseBeforeTaskRowids(): void {
    const sqlite = new Database(path);
    migrate(drizzle(sqlite), { migrationsFolder: migrationsUpTo(directory, '0001_claim_index') });
    sqlite.exec(`
      insert into instances (id, name, code, created_at, updated_at) values ('ins_a', 'A', 'A', 1, 1);
      insert into sources (id, instance_id, key, name, network, type, country_codes, created_at, updated_at)
        values ('src_kpn', 'ins_a', 'kpn', 'KPN', 'KPN', 'catalog', '["NL"]', 1, 1),
               ('src_zig', 'ins_a', 'ziggo', 'Ziggo', 'Ziggo', 'catalog', '["NL"]', 1, 1);
      insert into price_plans (id, instance_id, name, mrc_markup_bp, nrc_markup_bp, created_at, updated_at)
        values ('ppl_std', 'ins_a', 'Standard', 0, 0, 1, 1);
      insert into addresses (id, instance_id, input_kind, street, city, house_number, house_number_addition,
          postal_code, country_code, continent_code, created_at, updated_at)
        values ('adr_1', 'ins_a', 'fields', 'Coolsingel', 'Rotterdam', '40', '', '3011AD', 'NL', 'EU', 1, 1);
      insert into availability_requests (id, instance_id, address_id, price_plan_id, filters, status,
          sources_total, sources_finished, created_at, updated_at)
        values ('avr_1', 'ins_a', 'adr_1', 'ppl_std', '{}', 'in_progress', 2, 1, 1, 1);
      insert into gathering_tasks (id, instance_id, availability_request_id, source_id, status, attempts,
          available_at, created_at, updated_at)
        values ('tsk_b', 'ins_a', 'avr_1', 'src_zig', 'queued', 0, 5, 1, 1),
               ('tsk_a', 'ins_a', 'avr_1', 'src_kpn', 'succeeded', 1, 5, 1, 2);
      insert into availability_request_products (id, instance_id, availability_request_id, gathering_task_id,
          source_id, network, technology_type, connection_type, download_kbps, upload_kbps, contract_term_months,
          purchase_mrc_minor, purchase_nrc_minor, mrc_minor, nrc_minor, currency, created_at)
        values ('prd_1', 'ins_a', 'avr_1', 'tsk_a', 'src_kpn', 'KPN', 'FTTH', 'Fiber', 1000000, 1000000, 36,
                10000, 0, 11000, 0, 'EUR', 2),
               ('prd_2', 'ins_a', 'avr_1', 'tsk_a', 'src_kpn', 'KPN', 'FTTH', 'Fiber', 500000, 500000, 12,
                8000, 5000, 8800, 5500, 'EUR', 2);
    `);
    sqlite.close();
  }

  it('when a database with TypeID task keys is opened, then tasks are numbered by insertion and products follow their task', () => {
    databaseBeforeTaskRowids();
    const db = openDatabase(path);
    try {
      const tasks = db.$client
        .prepare('select id, source_id as sourceId, status from gathering_tasks order by id')
        .all();
      expect(tasks).toEqual([
        { id: 1, sourceId: 'src_zig', status: 'queued' },
        { id: 2, sourceId: 'src_kpn', status: 'succeeded' },
      ]);
      const products = db.$client
        .prepare(
          'select id, gathering_task_id as taskId, mrc_minor as mrc from availability_request_products order by id',
        )
        .all();
      expect(products).toEqual([
        { id: 'prd_1', taskId: 2, mrc: 11000 },
        { id: 'prd_2', taskId: 2, mrc: 8800 },
      ]);
      expect(db.$client.pragma('foreign_keys', { simple: true })).toBe(1);
      expect(db.$client.pragma('foreign_key_check')).toEqual([]);
      const indexes = db.$client
        .prepare(
          "select name from sqlite_master where type = 'index' and tbl_name in ('gathering_tasks', 'availability_request_products') and sql is not null order by name",
        )
        .pluck()
        .all();
      expect(indexes).toEqual([
        'availability_request_products_request_idx',
        'gathering_tasks_claim_idx',
        'gathering_tasks_request_source_unique',
      ]);
      const insertTask = db.$client.prepare(
        `insert into gathering_tasks (instance_id, availability_request_id, source_id, status, attempts, available_at,
           created_at, updated_at) values ('ins_a', 'avr_1', ?, 'queued', 0, 9, 9, 9)`,
      );
      expect(() => insertTask.run('src_kpn')).toThrow(
        'UNIQUE constraint failed: gathering_tasks.availability_request_id, gathering_tasks.source_id',
      );
      db.$client.exec('delete from gathering_tasks where id = 1');
      expect(insertTask.run('src_zig')).toEqual({ changes: 1, lastInsertRowid: 3 });
    } finally {
      closeDatabase(db);
    }
  });

  it('when a product points at a task that is gone, then opening refuses with the broken keys and leaves the file closed', () => {
    databaseBeforeTaskRowids();
    const sqlite = new Database(path);
    sqlite.pragma('foreign_keys = OFF');
    sqlite.exec(
      "update availability_request_products set availability_request_id = 'avr_gone' where id = 'prd_2'",
    );
    sqlite.close();
    expect(() => openDatabase(path)).toThrow(
      /The migrated database breaks 1 foreign keys: .*availability_request_products/,
    );
    const again = new Database(path);
    expect(again.prepare('select count(*) from gathering_tasks').pluck().get()).toBe(2);
    again.close();
  });
});
