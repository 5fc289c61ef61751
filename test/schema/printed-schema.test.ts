import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { printedSchema, schemaFile } from '../../scripts/print-schema.js';

describe('the committed schema.graphql', () => {
  it('when the schema is printed, then it equals the committed file', () => {
    const committed = existsSync(schemaFile) ? readFileSync(schemaFile, 'utf8') : '';

    const printed = printedSchema();

    expect(committed, 'schema.graphql is stale: run `npm run schema:print` and commit the result').toBe(
      printed,
    );
  });
});
