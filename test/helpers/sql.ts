import type Database from 'better-sqlite3';

type Statement = Database.Statement;
type Execute = 'all' | 'get' | 'run' | 'iterate';
const executes: Execute[] = ['all', 'get', 'run', 'iterate'];

/**
 * Runs `act` and records the SQL of every statement executed on `client` meanwhile (`all`, `get`,
 * `run`, `iterate`), prepared now or long before — the service keeps hot statements prepared, so
 * counting `prepare` calls would miss them. Statements share one prototype, which is patched for the
 * duration and restored afterwards.
 */
export async function recordStatements<T>(
  client: Database.Database,
  act: () => Promise<T>,
): Promise<{ result: T; sql: string[] }> {
  const prototype = Object.getPrototypeOf(client.prepare('select 1')) as Record<Execute, unknown>;
  const originals = new Map(executes.map((name) => [name, prototype[name]]));
  const sql: string[] = [];
  for (const name of executes) {
    const original = originals.get(name) as (this: Statement, ...args: unknown[]) => unknown;
    prototype[name] = function (this: Statement, ...args: unknown[]) {
      sql.push(this.source);
      return original.apply(this, args);
    };
  }
  try {
    return { result: await act(), sql };
  } finally {
    for (const name of executes) prototype[name] = originals.get(name);
  }
}
