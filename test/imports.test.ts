import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/*
 * The house's arrows (issue 33): which folder of src/ may import which, read from the sources themselves
 * with TypeScript's own pre-processor (static imports, `import type`, re-exports and dynamic imports alike).
 */

const root = fileURLToPath(new URL('..', import.meta.url));
const src = join(root, 'src');

/** Every TypeScript file under src/, as a path relative to the repository (`src/db/store.ts`). */
function sourceFiles(): string[] {
  return readdirSync(src, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts'))
    .map((entry) => relative(root, join(entry.parentPath, entry.name)))
    .sort();
}

/** The files of src/ a file imports, as repository paths (`.js` specifiers resolved to their `.ts`). */
function importsOf(file: string): string[] {
  const { importedFiles } = ts.preProcessFile(readFileSync(join(root, file), 'utf8'), true, true);
  return importedFiles
    .map(({ fileName }) => fileName)
    .filter((specifier) => specifier.startsWith('.'))
    .map((specifier) =>
      relative(root, resolve(dirname(join(root, file)), specifier)).replace(/\.js$/, '.ts'),
    );
}

const graph = new Map(sourceFiles().map((file) => [file, importsOf(file)]));

/** `from → to` for every import of a file under `from` into a file under `to`. */
function arrows(from: string, to: string): string[] {
  const found: string[] = [];
  for (const [file, imported] of graph) {
    if (!file.startsWith(from)) continue;
    for (const target of imported) if (target.startsWith(to)) found.push(`${file} → ${target}`);
  }
  return found;
}

/** The strongly connected components of more than one file (Tarjan): the import circles. */
function circles(): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (file: string): void => {
    index.set(file, counter);
    low.set(file, counter);
    counter += 1;
    stack.push(file);
    onStack.add(file);
    for (const next of graph.get(file) ?? []) {
      if (!graph.has(next)) continue;
      if (!index.has(next)) {
        visit(next);
        low.set(file, Math.min(low.get(file) ?? 0, low.get(next) ?? 0));
      } else if (onStack.has(next)) {
        low.set(file, Math.min(low.get(file) ?? 0, index.get(next) ?? 0));
      }
    }
    if (low.get(file) === index.get(file)) {
      const component: string[] = [];
      let member: string | undefined;
      do {
        member = stack.pop();
        if (member === undefined) break;
        onStack.delete(member);
        component.push(member);
      } while (member !== file);
      if (component.length > 1) found.push(component.sort());
    }
  };
  for (const file of graph.keys()) if (!index.has(file)) visit(file);
  return found;
}

describe('the imports of src/', () => {
  it('when the sources are read, then every relative import names a file that exists', () => {
    const missing = [...graph].flatMap(([file, imported]) =>
      imported.filter((target) => !graph.has(target)).map((target) => `${file} → ${target}`),
    );

    expect(graph.size).toBeGreaterThan(200);
    expect(missing).toEqual([]);
  });

  it('when the two dialects are read, then neither imports the other', () => {
    expect(arrows('src/db/postgres/', 'src/db/sqlite/')).toEqual([]);
    expect(arrows('src/db/sqlite/', 'src/db/postgres/')).toEqual([]);
  });

  it('when the store is read, then it imports nothing from the floors above it', () => {
    for (const above of ['src/gathering/', 'src/server/', 'src/resolvers/', 'src/rest/', 'src/schema/']) {
      expect(arrows('src/db/', above)).toEqual([]);
    }
  });

  it('when the REST layer is read, then it imports nothing from the server', () => {
    expect(arrows('src/rest/', 'src/server/')).toEqual([]);
  });

  it('when the whole house is read, then it has no circle, not even among the Pothos types', () => {
    // A mutation lives beside the type its payload names (assignPricePlan returns a customer: customers.ts).
    expect(circles()).toEqual([]);
  });
});
