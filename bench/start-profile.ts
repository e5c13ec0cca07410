/**
 * Where the time from process start to the first candle goes, from a V8 CPU profile of the probe's
 * process (`node --cpu-prof bin/mizan.js backtest …` with bench/e2e.ts's TypeScript probe): the
 * samples up to the first sample inside the probe's onCandle, grouped by what was running.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** The group of a sample: the module-hooks thread's requests, the module loader, a package, a mizan folder, GC, the file system… */
function group(stack: ProfileNode[]): string {
  const leaf = stack[0]!.callFrame;
  if (stack.some((n) => n.callFrame.url.includes('node:internal/modules/esm/hooks'))) {
    return 'waiting for the module-hooks thread (tsx and the strategy hooks, registered for a strategy file: the thread starts and loads them)';
  }
  if (leaf.functionName === '(garbage collector)') return 'garbage collector';
  if (leaf.functionName === '(program)' || leaf.functionName === '(idle)') return 'V8 outside JavaScript, idle (compiling, waiting for I/O)';
  const pkg = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(leaf.url);
  if (pkg) return `package ${pkg[1]}`;
  const own = /\/dist\/(src\/[^/]+|strategies|bundle)\//.exec(leaf.url);
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

/** The main thread's profile in `dir` (the largest file: a loader thread may write its own), up to the probe's first onCandle. */
export function startBreakdown(dir: string): StartBreakdown {
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
  for (let i = 0; i < p.samples.length; i++) {
    const stack = stackOf(p.samples[i]!);
    if (stack.some((n) => n.callFrame.functionName === 'onCandle' && n.callFrame.url.includes('probe'))) {
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
