/**
 * Which vitest project a test file belongs to (vitest.config.ts), read from what the file and the
 * test helpers it imports (transitively, within test/) do:
 * - `e2e`: starts a child process (the `mizan` CLI, npm, a worker) or a browser;
 * - `integration`: opens sockets — the simulator over HTTP and the stream, the bot's API server, a
 *   webhook receiver, Redis — or starts a bot (startBot runs the embedded simulator);
 * - `unit`: neither: one module in memory, the edit loop (`npm run test:unit`).
 * The markers are generous on purpose: a unit test put in `integration` only runs later; a socket
 * test put in `unit` would break the promise of the unit project. test/support/projects.test.ts
 * checks that every test file gets exactly one project.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

export type Project = 'unit' | 'integration' | 'e2e';

const E2E = /\b(spawn|spawnSync|execFile|execFileSync|execSync|fork)\s*\(|bin\/mizan\.js|chromium|playwright|promisify\(exec/;
const INTEGRATION =
  /\b(createWireServer|startFullSim|startSim|runSim|startBot|createServer|startServer|startApiServer|WebSocketServer|new WebSocket|socket\.io|io\s*\(|redis|Redis|ioredis|bullmq|fetch\s*\(|\.listen\s*\(|net\.connect|StreamClient|WallexRestClient|sampleServer|startSampleServer|notifyReceiver|startReceiver|rewriteProxy|Worker\s*\()/;

const IMPORT = /(?:import|export)[^'"]*?from\s*['"](\.{1,2}\/[^'"]+)['"]|import\s*\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)/g;

/** The test helpers a file imports (relative imports that stay inside `testRoot`), as absolute paths. */
function helperImports(file: string, source: string, testRoot: string): string[] {
  const out: string[] = [];
  for (const m of source.matchAll(IMPORT)) {
    const spec = (m[1] ?? m[2])!;
    let target = resolve(dirname(file), spec);
    if (relative(testRoot, target).startsWith('..')) continue;
    if (target.endsWith('.js')) target = target.slice(0, -3) + '.ts';
    try {
      if (statSync(target).isFile()) out.push(target);
    } catch {
      // a fixture or a generated file: not a helper
    }
  }
  return out;
}

/** The project of one test file (absolute path) under `testRoot`. */
export function projectOf(file: string, testRoot: string, cache = new Map<string, Project>()): Project {
  const seen = new Set<string>();
  let level: Project = 'unit';
  const visit = (f: string): void => {
    if (seen.has(f) || level === 'e2e') return;
    seen.add(f);
    const known = cache.get(f);
    const src = readFileSync(f, 'utf8');
    const own: Project = known ?? (E2E.test(src) ? 'e2e' : INTEGRATION.test(src) ? 'integration' : 'unit');
    if (own === 'e2e' || (own === 'integration' && level === 'unit')) level = own;
    for (const h of helperImports(f, src, testRoot)) visit(h);
  };
  // test/e2e runs the CLI as a user does: all of it is e2e.
  if (relative(testRoot, file).startsWith('e2e')) return 'e2e';
  visit(file);
  return level;
}

/** Every test file under `testRoot` (relative to `root`), by project. */
export function testProjects(root: string, testRoot = join(root, 'test')): Record<Project, string[]> {
  const out: Record<Project, string[]> = { unit: [], integration: [], e2e: [] };
  const walk = (dir: string): void => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.isDirectory()) {
        if (e.name !== 'fixtures' && e.name !== 'artifacts' && e.name !== 'node_modules') walk(p);
      } else if (e.name.endsWith('.test.ts')) out[projectOf(p, testRoot)].push(relative(root, p));
    }
  };
  walk(testRoot);
  for (const k of Object.keys(out) as Project[]) out[k].sort();
  return out;
}
