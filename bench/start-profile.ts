/**
 * Where the time from process start to the first candle goes, from a V8 CPU profile of the probe's
 * process (`node --cpu-prof bin/mizan.js backtest …` with bench/e2e.ts's probe): the samples up to
 * the probe's first onCandle, grouped by what was running. The probe prints the monotonic time of
 * that call (V8's profiles count in the same µs): the samples stop there, or at an earlier sample
 * inside the onCandle of a strategy module (its compiled copy in the cache folder), whichever
 * comes first; a call that short is seldom sampled at all.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  startTime: number;
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** Each file of dist/bundle/: where each module bundled in it starts (esbuild's `// <path>` line before its code). */
const bundleMarks = new Map<string, { line: number; module: string }[]>();

/** The module of a bundle file's line (0-based), by esbuild's markers: `dist/src/config/schema.js`, `node_modules/zod/v4/core/core.js`… */
function bundledModule(url: string, line: number): string | undefined {
  let marks = bundleMarks.get(url);
  if (!marks) {
    marks = [];
    const lines = readFileSync(fileURLToPath(url), 'utf8').split('\n');
    for (const [i, l] of lines.entries()) {
      const m = /^\/\/ (\S+\.[cm]?js)$/.exec(l);
      if (m) marks.push({ line: i, module: m[1]! });
    }
    bundleMarks.set(url, marks);
  }
  let found: string | undefined;
  for (const m of marks) {
    if (m.line > line) break;
    found = m.module;
  }
  return found;
}

/** The group of a sample: the module-hooks thread's requests, the module loader, a package, a mizan folder, GC, the file system… */
function group(stack: ProfileNode[]): string {
  const leaf = stack[0]!.callFrame;
  if (stack.some((n) => n.callFrame.url.includes('node:internal/modules/esm/hooks'))) {
    return 'waiting for the module-hooks thread (tsx and the strategy hooks, registered for a strategy file: the thread starts and loads them)';
  }
  if (stack.some((n) => n.callFrame.url.endsWith('/scripts/build-stale.mjs'))) return "the checkout's build check (scripts/build-stale.mjs)";
  if (leaf.functionName === '(garbage collector)') return 'garbage collector';
  if (leaf.functionName === '(program)' || leaf.functionName === '(idle)') return 'V8 outside JavaScript, idle (compiling, waiting for I/O)';
  // A bundle's code by the module it came from: a package bundled in (zod, yaml, commander…) or a mizan folder.
  const inBundle = /\/dist\/bundle\/[^/]+\.js$/.test(leaf.url) ? bundledModule(leaf.url, leaf.lineNumber) : undefined;
  const where = inBundle ? `/${inBundle}` : leaf.url;
  const pkg = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(where);
  if (pkg) return `package ${pkg[1]}${inBundle ? ' (bundled)' : ''}`;
  const own = /\/dist\/(src\/[^/]+|strategies|bundle)\//.exec(where);
  if (own) return `mizan ${own[1]}`;
  if (leaf.url.startsWith('node:internal/modules/') || leaf.url.startsWith('node:internal/deps/cjs-module-lexer')) return 'node: loading and compiling modules';
  if (leaf.url === '')
    return `native: ${['readFileUtf8', 'openFileHandle', 'internalModuleStat', 'fstat', 'read', 'close', 'readdir'].includes(leaf.functionName) ? 'file system (modules, config, data)' : leaf.functionName}`;
  return 'node: other internals';
}

export interface StartBreakdown {
  profiledToFirstCandleMs: number;
  groups: { group: string; ms: number }[];
}

/** A strategy module's frame: the probe's file, or a compiled strategy in the cache folder (or its temporary fallback). */
const strategyUrl = (url: string) => url.includes('probe') || url.includes('/strategies/') || url.includes('/mizan-strategies/');

/**
 * The main thread's profile in `dir` (the largest file: a loader thread may write its own), up to the
 * probe's first onCandle: `firstCandleUs`, its monotonic time in µs (the profile's clock).
 */
export function startBreakdown(dir: string, firstCandleUs: number): StartBreakdown {
  const text = readdirSync(dir)
    .filter((f) => f.endsWith('.cpuprofile'))
    .map((f) => readFileSync(join(dir, f), 'utf8'))
    .sort((a, b) => b.length - a.length)[0];
  if (!text) throw new Error(`no CPU profile in ${dir}`);
  const p = JSON.parse(text) as Profile;
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const stackOf = (id: number) => {
    const s: ProfileNode[] = [];
    for (let x: number | undefined = id; x !== undefined; x = parent.get(x)) s.push(byId.get(x)!);
    return s;
  };
  const groups = new Map<string, number>();
  let total = 0;
  let reached = false;
  let at = p.startTime;
  for (let i = 0; i < p.samples.length; i++) {
    at += p.timeDeltas[i]!;
    const stack = stackOf(p.samples[i]!);
    if (at >= firstCandleUs || stack.some((n) => n.callFrame.functionName === 'onCandle' && strategyUrl(n.callFrame.url))) {
      reached = true;
      break;
    }
    const ms = p.timeDeltas[i]! / 1000;
    total += ms;
    const g = group(stack);
    groups.set(g, (groups.get(g) ?? 0) + ms);
  }
  if (!reached) throw new Error("the profile never reached the probe strategy's onCandle");
  return {
    profiledToFirstCandleMs: Math.round(total),
    groups: [...groups]
      .sort((a, b) => b[1] - a[1])
      .filter(([, ms]) => ms >= 1)
      .map(([group, ms]) => ({ group, ms: Math.round(ms) })),
  };
}
