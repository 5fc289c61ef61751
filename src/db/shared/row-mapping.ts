import {
  Column,
  type DriverValueDecoder,
  getTableColumns,
  is,
  Placeholder,
  SQL,
  type Table,
} from 'drizzle-orm';

/*
 * What both stores share to read rows without drizzle's generic row mapping: a mapper generated per
 * selection and the parameters of a query bound per call. Each store's `prepared-rows.ts` runs the
 * statement its driver's cheapest way (better-sqlite3's `raw()`, node-postgres's `rowMode: 'array'`).
 */

/** One selected field: a column, or an SQL expression (its `mapWith` decoder applies, as in drizzle). */
export type SelectedField = Column | SQL | SQL.Aliased;

/** The fields of one key of a record, in the order the query selects them. */
export interface FieldGroup {
  key: string;
  fields: readonly (readonly [name: string, field: SelectedField])[];
}

/**
 * Some columns of `table` by name, in the order given, as a selection for `db.select({ key: pickColumns(…) })`
 * and the dialects' prepared record reads: a read fetches and decodes only what its callers show.
 */
export function pickColumns<T extends Table, const N extends keyof T['_']['columns'] & string>(
  table: T,
  names: readonly N[],
): Pick<T['_']['columns'], N> {
  const columns = getTableColumns(table) as T['_']['columns'];
  return Object.fromEntries(names.map((name) => [name, columns[name]])) as Pick<T['_']['columns'], N>;
}

/** How a driver value becomes a field's value: null when it stays as it is. */
function decoderOf(field: SelectedField): ((value: unknown) => unknown) | null {
  if (is(field, Column)) {
    if (field.mapFromDriverValue === Column.prototype.mapFromDriverValue) return null;
    return (value) => field.mapFromDriverValue(value);
  }
  // `mapWith` keeps its decoder on the SQL object, where drizzle's own row mapping reads it; its typings
  // leave the property out.
  const { decoder } = (is(field, SQL) ? field : field.sql) as unknown as {
    decoder: DriverValueDecoder<unknown, unknown>;
  };
  return (value) => decoder.mapFromDriverValue(value);
}

/**
 * A function turning one array row of `groups`' fields, in order, into `{ [key]: { [field name]: value } }`,
 * each value through its field's decoder where there is one (and never for null) — the objects drizzle's
 * row mapping makes for that selection.
 *
 * Generated as one object literal per group, as fast-json-stringify and Ajv generate their code: V8 then
 * makes every row object with one fixed shape and no per-key stores, about half the time of building them
 * key by key on a list page (25 requests with their addresses, `npm run bench`). Only the keys and field
 * names, from our own schema, reach the generated source, and each as a JSON string literal.
 */
export function recordMapper<R>(groups: readonly FieldGroup[]): (row: unknown[]) => R {
  const decoders: ((value: unknown) => unknown)[] = [];
  let index = 0;
  const objects = groups.map(({ key, fields }) => {
    const properties = fields.map(([name, field]) => {
      const at = index++;
      const value = `row[${at}]`;
      const decoder = decoderOf(field);
      if (!decoder) return `${JSON.stringify(name)}: ${value}`;
      decoders[at] = decoder;
      return `${JSON.stringify(name)}: ${value} === null ? null : decoders[${at}](${value})`;
    });
    return `${JSON.stringify(key)}: { ${properties.join(', ')} }`;
  });
  const build = new Function('decoders', `return (row) => ({ ${objects.join(', ')} });`);
  return build(decoders) as (row: unknown[]) => R;
}

/** The number of fields of `groups`: the columns their query selects. */
export function fieldCount(groups: readonly FieldGroup[]): number {
  return groups.reduce((sum, group) => sum + group.fields.length, 0);
}

/**
 * Binds a query's parameters per call, from `toSQL().params`: a placeholder takes the value given under its
 * name, as it is (drizzle does not map placeholder values either); any other is a value drizzle already
 * mapped to its driver value.
 */
export function parameterValues(
  params: readonly unknown[],
): (parameters: Record<string, unknown>) => unknown[] {
  const fillers = params.map((param) =>
    is(param, Placeholder) ? (parameters: Record<string, unknown>) => parameters[param.name] : () => param,
  );
  return (parameters) => fillers.map((fill) => fill(parameters));
}

/**
 * Head rows with their lines attached: `linesOf` reads the lines of every head at once (one statement; not
 * called without heads), and each head gets, in the order read, the lines whose `ownerOf` is its `idOf`.
 * Quotes and orders build their records so (`quoteRecordsOf`, `orderRecordsOf`).
 */
export async function withLines<Head, Line>(
  heads: readonly Head[],
  idOf: (head: Head) => string,
  ownerOf: (line: Line) => string,
  linesOf: (ids: string[]) => Line[] | Promise<Line[]>,
): Promise<(Head & { lines: Line[] })[]> {
  if (heads.length === 0) return [];
  const byOwner = new Map<string, Line[]>(heads.map((head) => [idOf(head), []]));
  for (const line of await linesOf([...byOwner.keys()])) byOwner.get(ownerOf(line))?.push(line);
  return heads.map((head) => ({ ...head, lines: byOwner.get(idOf(head)) ?? [] }));
}
