import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import type { ResultsFile } from './lib/markdown.js';
import { compareSitting, sittingTable } from './lib/sitting.js';

/**
 * `npm run bench:compare -- --a a1.json,a2.json --b b1.json,b2.json [--labels "Node 20,Node 24"]`: a bench
 * sitting's two sides (results files of `npm run bench`, run A B A B on one machine) as the Markdown table
 * BENCHMARKS.md shows: per scenario the gateway's median throughput and p99 on each side, B ÷ A, and each
 * side's ratio to its own baseline.
 */
const { values } = parseArgs({
  options: { a: { type: 'string' }, b: { type: 'string' }, labels: { type: 'string' } },
});
if (!values.a || !values.b) {
  process.stderr.write(
    'usage: npm run bench:compare -- --a <a.json,...> --b <b.json,...> [--labels "A,B"]\n',
  );
  process.exit(2);
}
const read = (list: string) =>
  list.split(',').map((path) => JSON.parse(readFileSync(path.trim(), 'utf8')) as ResultsFile);
const [a = 'A', b = 'B'] = (values.labels ?? 'A,B').split(',').map((label) => label.trim());
process.stdout.write(`${sittingTable(compareSitting(read(values.a), read(values.b)), { a, b })}\n`);
