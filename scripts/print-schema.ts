import { writeFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { lexicographicSortSchema, printSchema } from 'graphql';
import { schema } from '../src/schema/index.js';

/** Where the printed schema is committed: `schema.graphql` at the repository root. */
export const schemaFile = fileURLToPath(new URL('../schema.graphql', import.meta.url));

/** Says where the file comes from; keeps Biome from reformatting what graphql-js printed. */
const header = [
  '# Printed from src/schema by `npm run schema:print`; test/schema/printed-schema.test.ts fails when stale.',
  "# biome-ignore-all format: the committed layout is graphql-js's own",
];

/**
 * The GraphQL schema as committed: SDL with types and fields in alphabetical order, so that a diff
 * shows only what changed, under a {@link header}.
 */
export function printedSchema(): string {
  return `${header.join('\n')}\n\n${printSchema(lexicographicSortSchema(schema))}\n`;
}

// `npm run schema:print`; importing the module (the staleness test does) writes nothing.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  writeFileSync(schemaFile, printedSchema());
  console.log(`wrote ${schemaFile}`);
}
