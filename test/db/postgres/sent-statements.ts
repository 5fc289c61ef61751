import pg from 'pg';

/** The statements, with their parameters, that node-postgres sends while `act` runs. */
export async function statementsOf(
  act: () => Promise<unknown>,
): Promise<{ text: string; values: unknown[] }[]> {
  const statements: { text: string; values: unknown[] }[] = [];
  const prototype = pg.Client.prototype as unknown as { query: (...args: unknown[]) => unknown };
  const original = prototype.query;
  prototype.query = function (this: pg.Client, ...args: unknown[]) {
    // `query(text, values)` or `query({ text, values? }, values?)`, as drizzle calls it.
    const [config, values] = args as [string | { text: string; values?: unknown[] }, unknown[] | undefined];
    const text = typeof config === 'string' ? config : config.text;
    const given = typeof config === 'string' ? undefined : config.values;
    statements.push({ text, values: given ?? values ?? [] });
    return original.apply(this, args);
  };
  try {
    await act();
  } finally {
    prototype.query = original;
  }
  return statements;
}
