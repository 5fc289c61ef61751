import { execFileSync } from 'node:child_process';
import { cpSync, readdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** The repository root: `src/`, `tsconfig.build.json` and the default `dist/` live there. */
const projectRoot = fileURLToPath(new URL('..', import.meta.url));
const sourceDir = join(projectRoot, 'src');

/**
 * Files under `src/` that tsc compiles; everything else there is read at run time beside the modules
 * (the drizzle migrations of both stores, the dashboard's static files, the WAL checkpoint thread's
 * `.mjs`) and is copied unchanged.
 */
const compiled = (name: string) => name.endsWith('.ts') && !name.endsWith('.d.ts');

/**
 * Builds the production start (issue 17): removes `outDir`, compiles `src/` with `tsc -p tsconfig.build.json`
 * into it (the same tree, `.ts` → `.js`), then copies every other file of `src/` to the same place in it.
 * The modules find `data/`, `package.json` and `node_modules/` one level above `outDir`, as they find them
 * above `src/`, so `outDir` must be a direct child of a folder holding those (the default `dist/` is).
 *
 * @param options.outDir where to build; `dist/` of the repository by default. Removed first.
 * @param options.typeCheck `false` emits without type-checking (`tsc --noCheck`): the same JavaScript, about
 *   four times faster; for tests, where `npm run typecheck` has already checked the sources.
 * @returns the absolute path of the build.
 * @throws Error when tsc reports an error (its output is on stderr) or a copy fails.
 */
export function build(options: { outDir?: string; typeCheck?: boolean } = {}): string {
  const outDir = resolve(options.outDir ?? join(projectRoot, 'dist'));
  const outside = (inner: string, outer: string) => relative(outer, inner).startsWith('..');
  if (!outside(sourceDir, outDir) || !outside(outDir, sourceDir)) {
    throw new Error(`refusing to build into ${outDir}: it holds the sources or lies inside them`);
  }
  rmSync(outDir, { recursive: true, force: true });
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  execFileSync(
    process.execPath,
    [
      tsc,
      '-p',
      join(projectRoot, 'tsconfig.build.json'),
      '--outDir',
      outDir,
      ...(options.typeCheck === false ? ['--noCheck'] : []),
    ],
    { stdio: 'inherit' },
  );
  copyAssets(sourceDir, outDir);
  return outDir;
}

/** Copies every file under `from` that tsc does not compile to the same relative path under `to`. */
function copyAssets(from: string, to: string): void {
  for (const entry of readdirSync(from, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile() || compiled(entry.name)) continue;
    const source = join(entry.parentPath, entry.name);
    cpSync(source, join(to, relative(from, source)));
  }
}

// `npm run build [-- --out-dir <dir>] [-- --no-check]`; importing the module builds nothing.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const args = process.argv.slice(2);
  const outIndex = args.indexOf('--out-dir');
  const outDir = outIndex >= 0 ? args[outIndex + 1] : undefined;
  if (outIndex >= 0 && (!outDir || outDir.startsWith('--'))) {
    process.stderr.write('--out-dir needs a folder\n');
    process.exit(2);
  }
  try {
    const built = build({
      ...(outDir ? { outDir: isAbsolute(outDir) ? outDir : resolve(process.cwd(), outDir) } : {}),
      typeCheck: !args.includes('--no-check'),
    });
    process.stdout.write(`built ${relative(process.cwd(), built) || '.'}\n`);
  } catch (error) {
    // tsc has already printed its diagnostics; execFileSync's own message only repeats the command line.
    if (!(error instanceof Error && 'status' in error)) process.stderr.write(`${String(error)}\n`);
    process.exit(1);
  }
}
