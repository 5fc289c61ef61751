import { readFileSync } from 'node:fs';
import { type ResultsFile, resultsTable } from './lib/markdown.js';

/**
 * `npm run bench:table [-- <results.json>]`: prints a results file (default `bench/results/latest.json`)
 * as the Markdown table BENCHMARKS.md shows.
 */
const path = process.argv[2] ?? new URL('./results/latest.json', import.meta.url).pathname;
process.stdout.write(`${resultsTable(JSON.parse(readFileSync(path, 'utf8')) as ResultsFile)}\n`);
