import { cpSync, existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from './build.js';

/** The repository root: `package.json`, `package-lock.json`, `data/` and the installed `node_modules/`. */
const projectRoot = fileURLToPath(new URL('..', import.meta.url));

/** One package of `package-lock.json` (lockfile v3, `packages`), with the flags npm omits by. */
interface LockedPackage {
  version?: string;
  dev?: boolean;
  optional?: boolean;
  devOptional?: boolean;
  link?: boolean;
}

/** What {@link assembleImage} put where. */
export interface AssembledImage {
  /** The absolute path of the assembled folder. */
  root: string;
  /** The packages copied into its `node_modules/`, as lockfile keys (`node_modules/pino`, …). */
  packages: string[];
}

/**
 * The production packages of the lockfile: every entry npm's `--omit=dev` keeps (npm's own rule: a package
 * flagged `dev` is omitted; `devOptional` only when optional ones are omitted too), in lockfile order.
 * Optional packages (another platform's esbuild, fsevents) are listed too: the caller copies those installed.
 *
 * @throws Error when the lockfile is not version 2 or 3 or holds a workspace link (none is expected).
 */
export function productionPackages(lockfile: {
  lockfileVersion?: number;
  packages?: Record<string, LockedPackage>;
}): Array<[string, LockedPackage]> {
  if (lockfile.lockfileVersion !== 2 && lockfile.lockfileVersion !== 3)
    throw new Error(`package-lock.json version ${lockfile.lockfileVersion}: expected 2 or 3`);
  return Object.entries(lockfile.packages ?? {}).filter(([key, entry]) => {
    if (key === '') return false;
    if (entry.link) throw new Error(`${key} is a workspace link, which the image cannot copy`);
    return entry.dev !== true;
  });
}

/**
 * Assembles the files of the container image (issue 37) into `outDir`, the folder the `Dockerfile` copies
 * to `/app` and that `test/deploy/read-only-start.test.ts` starts read-only:
 *
 * - `dist/`: the compiled build (`npm run build`, see `scripts/build.ts`: the modules with the migrations,
 *   the dashboard's files and the WAL checkpoint thread beside them);
 * - `data/` (the catalogues, price plans and geo data the service reads) without any database file;
 * - `package.json` and `package-lock.json`;
 * - `node_modules/` with the production dependencies only, copied from the installed `node_modules/` of the
 *   repository (so better-sqlite3's native module is the one `npm ci` built, and no registry is needed):
 *   every lockfile package npm's `--omit=dev` keeps, checked against the installed version. No `.bin/`.
 *
 * Nothing in it is written at run time: the SQLite file goes where `DATABASE_URL` says (`/data/gateway.db`
 * in the image, a volume).
 *
 * @param options.outDir where to assemble; removed first. Must lie outside the repository's `src/`.
 * @param options.typeCheck `false` builds without type-checking (tests; see `build`).
 * @returns the folder and the packages copied.
 * @throws Error when the build fails, or a production package of the lockfile is not installed (or
 *   installed in another version): run `npm ci` first.
 */
export function assembleImage(options: { outDir: string; typeCheck?: boolean }): AssembledImage {
  const root = resolve(options.outDir);
  rmSync(root, { recursive: true, force: true });
  mkdirSync(root, { recursive: true });
  build({ outDir: join(root, 'dist'), ...(options.typeCheck === false ? { typeCheck: false } : {}) });
  for (const file of ['package.json', 'package-lock.json']) cpSync(join(projectRoot, file), join(root, file));
  cpSync(join(projectRoot, 'data'), join(root, 'data'), {
    recursive: true,
    filter: (source) => !/\.db(-\w+)?$/.test(source),
  });

  const lockfile = JSON.parse(readFileSync(join(projectRoot, 'package-lock.json'), 'utf8'));
  const packages: string[] = [];
  for (const [key, entry] of productionPackages(lockfile)) {
    const installed = join(projectRoot, key);
    if (!existsSync(installed)) {
      if (entry.optional || entry.devOptional) continue;
      throw new Error(`${key} is not installed: run npm ci first`);
    }
    const version = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8')).version;
    if (entry.version !== undefined && version !== entry.version)
      throw new Error(`${key} is installed as ${version}, the lockfile says ${entry.version}: run npm ci`);
    // A package's own nested node_modules/ holds packages of their own lockfile entries, copied as such.
    cpSync(installed, join(root, key), {
      recursive: true,
      filter: (source) => relative(installed, source).split(/[\\/]/)[0] !== 'node_modules',
    });
    packages.push(key);
  }
  return { root, packages };
}

// `tsx scripts/assemble-image.ts --out-dir <dir> [--no-check]`; importing the module assembles nothing.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const args = process.argv.slice(2);
  const outDir = args[args.indexOf('--out-dir') + 1];
  if (!args.includes('--out-dir') || !outDir || outDir.startsWith('--')) {
    process.stderr.write('usage: tsx scripts/assemble-image.ts --out-dir <dir> [--no-check]\n');
    process.exit(2);
  }
  try {
    const image = assembleImage({
      outDir: isAbsolute(outDir) ? outDir : resolve(process.cwd(), outDir),
      typeCheck: !args.includes('--no-check'),
    });
    process.stdout.write(`assembled ${image.root} (${image.packages.length} production packages)\n`);
  } catch (error) {
    if (!(error instanceof Error && 'status' in error)) process.stderr.write(`${String(error)}\n`);
    process.exit(1);
  }
}
