import { Command } from 'commander';
import { demoCatalogPath, readCatalogFile } from '../sources/catalog-file.js';
import { startSupplierSimulator } from './server.js';
import { startSonataSeller } from './sonata/server.js';

/*
 * `npm run supplier-sim -- --port 4100`: a supplier simulator for development and benchmarks. Point an
 * `http` source at http://127.0.0.1:4100/suppliers/<source-key>/availability; its offers are ordered at
 * http://127.0.0.1:4100/suppliers/<source-key>/orders (docs/supplier-contract.md, "Ordering").
 * `npm run supplier-sim -- --protocol mef-sonata`: MEF LSO Sonata sellers instead (docs/mef-sonata-mapping.md);
 * point a `mef-sonata` source at http://127.0.0.1:4100/sonata/<source-key>/<instant|deferred|notify|sync-only>.
 */
const options = new Command('supplier-sim')
  .description('Simulated suppliers with NL demo offers, speaking the supplier contract or MEF LSO Sonata')
  .option('--protocol <protocol>', 'supplier-contract or mef-sonata', 'supplier-contract')
  .option('--port <port>', 'port to listen on', '4100')
  .option('--host <host>', 'interface', '127.0.0.1')
  .option('--latency-min <ms>', 'fastest answer', '50')
  .option('--latency-max <ms>', 'slowest answer', '400')
  .option('--failure-rate <share>', 'share of 503 answers (0–1)', '0')
  .option('--hang-rate <share>', 'share of calls never answered (0–1)', '0')
  .option('--malformed-rate <share>', 'share of malformed JSON answers (0–1)', '0')
  .option('--step-ms <ms>', 'time between the states of an order (mef-sonata: of deferred tasks too)', '1000')
  .parse(process.argv)
  .opts<Record<string, string>>();

const behaviour = {
  latencyMinMs: Number(options.latencyMin),
  latencyMaxMs: Number(options.latencyMax),
  failureRate: Number(options.failureRate),
  hangRate: Number(options.hangRate),
  malformedRate: Number(options.malformedRate),
};
const host = options.host ?? '127.0.0.1';
let stop: () => Promise<void>;
if (options.protocol === 'mef-sonata') {
  const seller = await startSonataSeller({
    port: Number(options.port),
    host,
    behaviour: { ...behaviour, stepMs: Number(options.stepMs) },
    record: false,
  });
  const keys = readCatalogFile(demoCatalogPath).sources.map((source) => source.key);
  process.stdout.write(
    `MEF LSO Sonata sellers on ${seller.url}/sonata/<source-key>/<instant|deferred|notify|sync-only>\n` +
      `  source keys: ${keys.join(', ')}\n` +
      '  APIs below each seller: /mefApi/sonata/productOfferingQualification/v7, /mefApi/sonata/quoteManagement/v8,\n' +
      '    /mefApi/sonata/productOrderingManagement/v10, /mefApi/sonata/productInventory/v7\n' +
      `  OAuth2 token: POST ${seller.tokenUrl('<source-key>')} (client ${seller.credentials.clientId} / ${seller.credentials.clientSecret})\n`,
  );
  stop = seller.stop;
} else if (options.protocol === 'supplier-contract') {
  const simulator = await startSupplierSimulator({
    port: Number(options.port),
    host,
    behaviour: { ...behaviour, stepMs: Number(options.stepMs) },
  });
  process.stdout.write(
    `supplier simulator on ${simulator.url}/suppliers/<source-key>/availability\n` +
      `  orders: ${simulator.url}/suppliers/<source-key>/orders\n`,
  );
  stop = simulator.stop;
} else {
  process.stderr.write(`unknown --protocol ${options.protocol}: use supplier-contract or mef-sonata\n`);
  process.exit(2);
}
const shutdown = () => void stop().then(() => process.exit(0));
process.once('SIGINT', shutdown);
process.once('SIGTERM', shutdown);
