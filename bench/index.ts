/**
 * `npm run bench`: runs every benchmark of the project in turn and writes each one's results to
 * `bench/results/<name>.json` (and a combined `bench/results/all.json`).
 */
import { mkdirSync, writeFileSync, existsSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { dirname, join } from 'node:path';

const here = dirname(fileURLToPath(import.meta.url));
const BENCHES = ['market-book', 'market-latency', 'indicators', 'risk', 'execution', 'backtest', 'order-cost', 'profile', 'e2e', 'queue'];

const results: Record<string, unknown> = {};
mkdirSync(join(here, 'results'), { recursive: true });
for (const name of BENCHES) {
  const file = join(here, `${name}.ts`);
  if (!existsSync(file)) continue;
  process.stdout.write(`\n== ${name}\n`);
  const mod = (await import(pathToFileURL(file).href)) as { run?: () => Promise<unknown> | unknown };
  if (typeof mod.run !== 'function') continue;
  results[name] = await mod.run();
  process.stdout.write(`${JSON.stringify(results[name], null, 2)}\n`);
}
writeFileSync(join(here, 'results', 'all.json'), JSON.stringify({ date: new Date().toISOString(), node: process.version, results }, null, 2) + '\n');
process.stdout.write(`\nresults written to bench/results/\n`);
