import { execFile } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const drizzleKit = join(root, 'node_modules/.bin/drizzle-kit');

describe('committed migrations', () => {
  it.each([
    { dialect: 'sqlite', schema: 'src/db/sqlite/schema/index.ts', migrations: 'src/db/sqlite/migrations' },
    {
      dialect: 'postgresql',
      schema: 'src/db/postgres/schema/index.ts',
      migrations: 'src/db/postgres/migrations',
    },
  ])(
    'when drizzle-kit compares the $dialect schema with its committed migrations, then it has nothing to generate',
    async ({ dialect, schema, migrations }) => {
      // drizzle-kit writes what it would generate: it works on a copy, so the tree is never touched.
      const dir = mkdtempSync(join(tmpdir(), 'gateway-drift-'));
      try {
        const out = join(dir, 'migrations');
        cpSync(join(root, migrations), out, { recursive: true });
        const config = join(dir, 'drizzle.config.json');
        writeFileSync(
          config,
          // drizzle-kit reads `out` relative to the working directory only.
          JSON.stringify({ dialect, schema, out: relative(root, out), casing: 'snake_case' }),
        );

        const { stdout } = await promisify(execFile)(drizzleKit, ['generate', '--config', config], {
          cwd: root,
        });

        expect(stdout).toContain('No schema changes, nothing to migrate');
        expect(readdirSync(out).sort()).toEqual(readdirSync(join(root, migrations)).sort());
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );
});
