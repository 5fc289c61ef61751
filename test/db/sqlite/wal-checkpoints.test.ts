import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { closeDatabase, openDatabase, type SqliteDb } from '../../../src/db/sqlite/client.js';
import { startWalCheckpoints, type WalCheckpoints } from '../../../src/db/sqlite/wal-checkpoints.js';

/** A logger that keeps what it is given, for asserting on logged failures. */
function recordingLogger() {
  const lines: { level: number; msg: string; reason?: string }[] = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => lines.push(JSON.parse(line)) });
  return { logger, lines };
}

/** Writes about `pages` 4 KiB pages of rows in one transaction. */
function writePages(db: SqliteDb, pages: number): void {
  db.$client.exec('create table if not exists filler (id integer primary key, body text not null)');
  const insert = db.$client.prepare('insert into filler (body) values (?)');
  db.$client.transaction(() => {
    for (let n = 0; n < pages; n++) insert.run('x'.repeat(4000));
  })();
}

async function eventually(check: () => boolean, what: string): Promise<void> {
  for (let attempt = 0; attempt < 200; attempt++) {
    if (check()) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`timed out waiting until ${what}`);
}

describe('startWalCheckpoints', () => {
  let directory: string;
  let path: string;
  let db: SqliteDb;
  let checkpoints: WalCheckpoints | null;
  beforeEach(() => {
    directory = mkdtempSync(join(tmpdir(), 'gateway-wal-'));
    path = join(directory, 'gateway.db');
    db = openDatabase(path);
    checkpoints = null;
  });
  afterEach(async () => {
    await checkpoints?.stop();
    closeDatabase(db);
    rmSync(directory, { recursive: true, force: true });
  });

  it('when the thread runs, then the connection stops checkpointing and the thread copies the WAL into the file', async () => {
    const { logger, lines } = recordingLogger();
    checkpoints = startWalCheckpoints(db, path, { logger, intervalMs: 20 });
    expect(await checkpoints.started).toBe(true);
    expect(db.$client.pragma('wal_autocheckpoint', { simple: true })).toBe(0);
    expect(db.$client.pragma('journal_size_limit', { simple: true })).toBe(64 * 1024 * 1024);
    const before = statSync(path).size;
    // 1,500 pages: past the 1,000 at which the connection would have checkpointed on commit.
    writePages(db, 1500);
    await eventually(() => statSync(path).size > before + 1500 * 4000, 'the database file holds the rows');
    expect(db.$client.prepare('select count(*) from filler').pluck().get()).toBe(1500);
    expect(lines).toEqual([]);
  });

  it('when the service writes without pause, then the WAL starts over once past the size limit instead of growing', async () => {
    const { logger, lines } = recordingLogger();
    const limit = 1024 * 1024;
    checkpoints = startWalCheckpoints(db, path, {
      logger,
      intervalMs: 10,
      journalSizeLimitBytes: limit,
      walRestartBytes: limit,
    });
    expect(await checkpoints.started).toBe(true);
    // 40 MB of rows in 2,000 transactions, each right after the last (a turn of the event loop between).
    for (let n = 0; n < 2000; n++) {
      writePages(db, 5);
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(db.$client.prepare('select count(*) from filler').pluck().get()).toBe(10_000);
    // Bounded: a few times the limit at most (the frames written while a round ran), not the 40 MB written.
    expect(statSync(`${path}-wal`).size).toBeLessThan(8 * limit);
    expect(lines).toEqual([]);
  });

  it('when it stops, then the connection checkpoints on commit again and nothing is logged', async () => {
    const { logger, lines } = recordingLogger();
    checkpoints = startWalCheckpoints(db, path, { logger, intervalMs: 20 });
    expect(await checkpoints.started).toBe(true);
    await checkpoints.stop();
    expect(db.$client.pragma('wal_autocheckpoint', { simple: true })).toBe(1000);
    const before = statSync(path).size;
    writePages(db, 1500);
    expect(statSync(path).size).toBeGreaterThan(before + 1000 * 4000);
    expect(lines).toEqual([]);
  });

  it('when the thread cannot open the file, then checkpoints stay on the connection and the failure is logged', async () => {
    const { logger, lines } = recordingLogger();
    checkpoints = startWalCheckpoints(db, join(directory, 'missing.db'), { logger, intervalMs: 20 });
    expect(await checkpoints.started).toBe(false);
    expect(db.$client.pragma('wal_autocheckpoint', { simple: true })).toBe(1000);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 50, msg: 'WAL checkpoints are back on the request path' });
    expect(lines[0]?.reason).toContain('unable to open database file');
  });
});
