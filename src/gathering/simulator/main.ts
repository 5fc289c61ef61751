import { Command } from 'commander';
import { startSupplierSimulator } from './server.js';

/*
 * `npm run supplier-sim -- --port 4100`: a supplier simulator for development and benchmarks. Point an
 * `http` source at http://127.0.0.1:4100/suppliers/<source-key>/availability.
 */
const options = new Command('supplier-sim')
  .description('Simulated suppliers speaking the supplier contract, with NL demo offers')
  .option('--port <port>', 'port to listen on', '4100')
  .option('--host <host>', 'interface', '127.0.0.1')
  .option('--latency-min <ms>', 'fastest answer', '50')
  .option('--latency-max <ms>', 'slowest answer', '400')
  .option('--failure-rate <share>', 'share of 503 answers (0–1)', '0')
  .option('--hang-rate <share>', 'share of calls never answered (0–1)', '0')
  .option('--malformed-rate <share>', 'share of malformed JSON answers (0–1)', '0')
  .parse(process.argv)
  .opts<Record<string, string>>();

const simulator = await startSupplierSimulator({
  port: Number(options.port),
  host: options.host ?? '127.0.0.1',
  behaviour: {
    latencyMinMs: Number(options.latencyMin),
    latencyMaxMs: Number(options.latencyMax),
    failureRate: Number(options.failureRate),
    hangRate: Number(options.hangRate),
    malformedRate: Number(options.malformedRate),
  },
});
process.stdout.write(`supplier simulator on ${simulator.url}/suppliers/<source-key>/availability\n`);
const shutdown = () => void simulator.stop().then(() => process.exit(0));
process.once('SIGINT', shutdown);
process.once('SIGTERM', shutdown);
