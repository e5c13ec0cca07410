/**
 * `npm run bench`: runs every benchmark of the project in turn and writes each one's results to
 * `bench/results/<name>.json` (and a combined `bench/results/all.json`). A benchmark that throws is
 * reported with its error and the others still run; the process then exits with status 1.
 * `npm run bench`'s prebench installs Debian's redis-server for `queue` (as `npm test`'s pretest does)
 * and builds `dist/` when it is stale (`e2e` runs `bin/mizan.js`).
 */
import { mkdirSync, writeFileSync, existsSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { dirname, join } from 'node:path';

const here = dirname(fileURLToPath(import.meta.url));
const BENCHES = [
  'market-book',
  'market-latency',
  'indicators',
  'risk',
  'execution',
  'backtest',
  'candle-cache',
  'book-backtest',
  'order-cost',
  'profile',
  'e2e',
  'queue',
  'drills',
  'soak',
];

const results: Record<string, unknown> = {};
const failed: string[] = [];
mkdirSync(join(here, 'results'), { recursive: true });
for (const name of BENCHES) {
  const file = join(here, `${name}.ts`);
  if (!existsSync(file)) continue;
  process.stdout.write(`\n== ${name}\n`);
  const mod = (await import(pathToFileURL(file).href)) as { run?: () => Promise<unknown> | unknown };
  if (typeof mod.run !== 'function') continue;
  try {
    results[name] = await mod.run();
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    results[name] = { failed: message };
    failed.push(name);
    process.stderr.write(`bench ${name} failed: ${err instanceof Error && err.stack ? err.stack : message}\n`);
    continue;
  }
  process.stdout.write(`${JSON.stringify(results[name], null, 2)}\n`);
}
writeFileSync(join(here, 'results', 'all.json'), JSON.stringify({ date: new Date().toISOString(), node: process.version, results }, null, 2) + '\n');
process.stdout.write(`\nresults written to bench/results/\n`);
if (failed.length > 0) {
  process.stderr.write(`${failed.length} benchmark(s) failed: ${failed.join(', ')} (their previous bench/results/<name>.json is left as it was)\n`);
  process.exitCode = 1;
}
