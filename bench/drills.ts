/**
 * The operator drill (issue 33): a live bot (`mizan run <config> --live`, the fault drills' pinger
 * strategy) against `mizan sim` in another process, killed with SIGKILL N times (default 6) at
 * random moments, with a fault switched on before each kill (latency beyond the timeout, 429 and 503
 * storms, lost order responses, dropped sockets); each restart starts through whatever fault is
 * still on for its first seconds. A last run is stopped with Ctrl-C (it cancels what is open). Then every order is
 * compared between the journal and the simulator (`GET /__sim/orders`): twins (one client id twice
 * on the simulator), lost (in the journal as sent, absent from the simulator), orphans (on the
 * simulator, absent from the journal), executed quantity and state per order, and the balances per
 * asset (the simulator's change against the journal's fills). Figures in bench/results/drills.json.
 *
 * `node bin/run-ts.js bench/drills.ts [kills] [seed]`; in `npm run bench` via bench/index.ts.
 * Not a test: the moments are random (the seed is recorded), and the drill takes minutes.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Decimal } from '../src/core/decimal.js';
import { mulberry32 } from '../src/sim/replay/prng.js';
import { startMizan, type MizanChild } from '../test/e2e/run-mizan.js';
import { Journal } from '../src/store/journal.js';
import { journalSplit } from '../src/store/pnl.js';

const here = dirname(fileURLToPath(import.meta.url));
const REPO = resolve(here, '..');
const PINGER = join(REPO, 'test/scenario/fixtures/pinger.ts');
const KEY_ENV = 'MIZAN_DRILL_API_KEY';
const PREFIX = 'drill';

const FAULTS: { name: string; body: Record<string, unknown> }[] = [
  { name: 'latency 2500 ms (timeout 1500 ms)', body: { latencyMs: 2500 } },
  { name: '429 storm (12 answers)', body: { failNext: { status: 429, count: 12 } } },
  { name: 'lost order responses (2)', body: { loseOrderResponses: 2 } },
  { name: '503 storm (8 answers)', body: { failNext: { status: 503, count: 8 } } },
  { name: 'dropped sockets', body: { dropConnections: true } },
];

/** A `mizan` child process (test/e2e/run-mizan.ts: stdout and stderr collected, its exit awaited). */
type Child = MizanChild;

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

async function until(what: string, cond: () => boolean, timeoutMs: number, child?: Child): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!cond()) {
    if (child && !child.alive()) throw new Error(`exited while waiting for ${what}: ${child.out().slice(-2000)}`);
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${child ? `: ${child.out().slice(-2000)}` : ''}`);
    await sleep(100);
  }
}

interface SimOrderDto {
  clientOrderId: string;
  symbol: string;
  side: string;
  status: string;
  active: boolean;
  origQty: string;
  executedQty: string;
}

function simState(o: SimOrderDto): string {
  const executed = new Decimal(o.executedQty);
  if (o.active) return executed.gt(0) ? 'partially_filled' : 'open';
  if (executed.gt(0) && executed.gte(new Decimal(o.origQty))) return 'filled';
  return 'cancelled';
}

export async function run(
  kills = Number(process.env.BENCH_DRILL_KILLS ?? 6),
  seed = Number(process.env.BENCH_DRILL_SEED ?? Date.now() % 1_000_000),
): Promise<Record<string, unknown>> {
  if (!Number.isInteger(kills) || kills < 1) throw new RangeError(`kills must be a whole number ≥ 1, got ${kills}`);
  // mulberry32: the random moments, reproducible from the recorded seed.
  const random = mulberry32(seed);
  const between = (lo: number, hi: number) => Math.round(lo + random() * (hi - lo));
  const dir = mkdtempSync(join(tmpdir(), 'mizan-drills-'));
  const loadAtStart = loadavg()[0]!;
  const sim = startMizan(['sim', '--port', '0', '--seed', String(seed % 1000)]);
  const children: Child[] = [];
  try {
    await until('mizan sim to print its addresses', () => /API key +\S+/.test(sim.out()), 120_000, sim);
    const url = /REST +(http:\/\/127\.0\.0\.1:\d+)/.exec(sim.out())![1]!;
    const key = /API key +(\S+)/.exec(sim.out())![1]!;
    const account = /account "([^"]+)"/.exec(sim.out())![1]!;
    const api = async (method: string, path: string, body?: unknown): Promise<unknown> => {
      const res = await fetch(`${url}${path}`, {
        method,
        headers: { 'x-api-key': key, ...(body ? { 'content-type': 'application/json' } : {}) },
        ...(body ? { body: JSON.stringify(body) } : {}),
      });
      const json = (await res.json()) as { success?: boolean; result?: unknown };
      if (!res.ok) throw new Error(`${method} ${path} -> HTTP ${res.status}: ${JSON.stringify(json)}`);
      return json.result;
    };
    const balances = async () => {
      const r = (await api('GET', '/v1/account/balances')) as { balances: Record<string, { value: string }> };
      return Object.fromEntries(Object.entries(r.balances).map(([a, b]) => [a, new Decimal(b.value)]));
    };
    const startBalances = await balances();
    const journalFile = join(dir, 'drill.sqlite');
    const config = join(dir, 'drill.yaml');
    writeFileSync(
      config,
      [
        'mode: live',
        'exchange:',
        '  simulator: false',
        `  baseUrl: ${url}`,
        `  apiKey: \${${KEY_ENV}}`,
        '  timeoutMs: 1500',
        'strategies:',
        `  - name: ${PREFIX}`,
        `    strategy: ${PINGER}`,
        '    markets: [BTCUSDT]',
        '    resolution: "1"',
        '    params: { everyMs: 250, maxOrders: 100000, maxOpen: 3, fillEvery: 3 }',
        `journal: { file: ${journalFile} }`,
        'logging: { level: warn, pretty: false }',
        '',
      ].join('\n'),
    );
    const runs: Record<string, unknown>[] = [];
    // Each restart begins with the fault of the previous kill still on (its first 1-4 s), then lifted.
    const startBot = async (): Promise<{ bot: Child; startMs: number; faultOnAtStartMs: number }> => {
      const t0 = Date.now();
      const bot = startMizan(['run', config, '--live'], { [KEY_ENV]: key });
      children.push(bot);
      const faultOnAtStartMs = between(1_000, 4_000);
      await sleep(faultOnAtStartMs);
      await api('POST', '/__sim/faults', { reset: true });
      await until('the LIVE banner', () => bot.out().includes('LIVE: orders go to the exchange'), 180_000, bot);
      return { bot, startMs: Date.now() - t0, faultOnAtStartMs };
    };
    for (let k = 0; k < kills; k++) {
      const { bot, startMs, faultOnAtStartMs } = await startBot();
      const tradeMs = between(2_000, 8_000);
      await sleep(tradeMs);
      const fault = FAULTS[k % FAULTS.length]!;
      await api('POST', '/__sim/faults', fault.body);
      const faultMs = between(300, 3_000);
      await sleep(faultMs);
      const alive = bot.alive();
      bot.proc.kill('SIGKILL');
      const end = await bot.exited;
      const startRetries = (bot.out().match(/at start: retrying/g) ?? []).length;
      runs.push({
        run: k + 1,
        startMs,
        faultOnAtStartMs,
        startRetries,
        tradeMs,
        fault: fault.name,
        killedAfterFaultMs: faultMs,
        aliveAtKill: alive,
        signal: end.signal,
        exitCode: end.code,
        recovered: /recovered \d+ open order\(s\)[^\n]*/.exec(bot.out())?.[0] ?? null,
      });
      process.stdout.write(`drill run ${k + 1}/${kills}: started in ${startMs} ms, traded ${tradeMs} ms, ${fault.name}, SIGKILL ${faultMs} ms later\n`);
    }
    // The last run: starts through the last fault, trades without faults, then Ctrl-C (cancels what is open).
    const last = await startBot();
    await until('a status line of the last run', () => /\[live \d+m\d+s\]/.test(last.bot.out()), 60_000, last.bot);
    await sleep(5_000);
    last.bot.proc.kill('SIGINT');
    const lastEnd = await last.bot.exited;
    runs.push({
      run: kills + 1,
      startMs: last.startMs,
      faultOnAtStartMs: last.faultOnAtStartMs,
      startRetries: (last.bot.out().match(/at start: retrying/g) ?? []).length,
      stop: 'SIGINT',
      exitCode: lastEnd.code,
      recovered: /recovered \d+ open order\(s\)[^\n]*/.exec(last.bot.out())?.[0] ?? null,
    });

    // ------------------------------------------------------------ journal against the simulator
    const simOrders = ((await api('GET', `/__sim/orders?accountId=${encodeURIComponent(account)}`)) as SimOrderDto[]).filter((o) =>
      o.clientOrderId.startsWith(`${PREFIX}_`),
    );
    const journal = Journal.open(journalFile, { readonly: true });
    let rows, fills, splitSymbol;
    try {
      rows = journal.orders({}).filter((r) => r.clientId.startsWith(`${PREFIX}_`));
      fills = journal.fills({});
      // The instruments the bot recorded from its market catalog.
      splitSymbol = journalSplit(journal);
    } finally {
      journal.close();
    }
    const byId = new Map<string, SimOrderDto[]>();
    for (const o of simOrders) byId.set(o.clientOrderId, [...(byId.get(o.clientOrderId) ?? []), o]);
    const twins = [...byId].filter(([, l]) => l.length > 1).map(([id]) => id);
    const inJournal = new Set(rows.map((r) => r.clientId));
    const lost: string[] = [];
    const executedMismatch: string[] = [];
    const stateMismatch: string[] = [];
    for (const r of rows) {
      const o = byId.get(r.clientId)?.[0];
      if (!o) {
        if (r.status !== 'rejected') lost.push(`${r.clientId} (${r.status} in the journal)`);
        continue;
      }
      if (!new Decimal(o.executedQty).eq(r.executedQty)) executedMismatch.push(`${r.clientId}: journal ${r.executedQty.toFixed()}, simulator ${o.executedQty}`);
      if (r.status !== simState(o) || r.final === o.active)
        stateMismatch.push(`${r.clientId}: journal ${r.status}${r.final ? ' (final)' : ''}, simulator ${simState(o)}`);
    }
    const orphans = simOrders.filter((o) => !inJournal.has(o.clientOrderId)).map((o) => `${o.clientOrderId} (${simState(o)})`);
    const openOnSim = simOrders.filter((o) => o.active).map((o) => o.clientOrderId);
    const openInJournal = rows.filter((r) => !r.final).map((r) => r.clientId);

    // Balances: the simulator's change per asset against what the journal's fills say.
    const endBalances = await balances();
    const expected: Record<string, Decimal> = {};
    const add = (asset: string, v: Decimal) => (expected[asset] = (expected[asset] ?? new Decimal(0)).plus(v));
    for (const f of fills) {
      const { base, quote } = splitSymbol(f.symbol);
      const sign = f.side === 'BUY' ? 1 : -1;
      add(base, f.quantity.mul(sign));
      add(quote, f.price.mul(f.quantity).mul(-sign));
      add(f.feeAsset, f.fee.neg());
    }
    const assets = [...new Set([...Object.keys(startBalances), ...Object.keys(endBalances), ...Object.keys(expected)])].sort();
    const balanceRows: Record<string, { simulatorChange: string; journalChange: string; difference: string }> = {};
    const balanceMismatch: string[] = [];
    for (const a of assets) {
      const simChange = (endBalances[a] ?? new Decimal(0)).minus(startBalances[a] ?? new Decimal(0));
      const jChange = expected[a] ?? new Decimal(0);
      const diff = simChange.minus(jChange);
      balanceRows[a] = { simulatorChange: simChange.toFixed(), journalChange: jChange.toFixed(), difference: diff.toFixed() };
      // Fills are journaled at their average price: the quote amount may differ in the last digits.
      if (diff.abs().gt('0.000001')) balanceMismatch.push(`${a}: simulator ${simChange.toFixed()}, journal ${jChange.toFixed()}`);
    }

    const result = {
      what: `operator drill: mizan run --live (pinger on BTCUSDT, timeoutMs 1500) against mizan sim in another process, ${kills} SIGKILLs at random moments (2-8 s of trading, then a fault, then 0.3-3 s), each restart with that fault on for its first 1-4 s, a last run stopped with Ctrl-C; then the journal against the simulator order by order and the balances per asset`,
      date: new Date().toISOString(),
      seed,
      kills,
      cores: availableParallelism(),
      loadAverage1mAtStart: loadAtStart,
      loadAverage1mAtEnd: loadavg()[0],
      runs,
      orders: {
        journal: rows.length,
        simulator: simOrders.length,
        filled: simOrders.filter((o) => new Decimal(o.executedQty).gt(0)).length,
        journalFills: fills.length,
      },
      twins,
      lost,
      orphans,
      executedMismatch,
      stateMismatch,
      openOnSimulatorAfterStop: openOnSim,
      openInJournalAfterStop: openInJournal,
      balances: balanceRows,
      balanceMismatch,
      agree: twins.length + lost.length + orphans.length + executedMismatch.length + stateMismatch.length + balanceMismatch.length === 0,
      node: process.version,
    };
    mkdirSync(join(here, 'results'), { recursive: true });
    writeFileSync(join(here, 'results', 'drills.json'), JSON.stringify(result, null, 2) + '\n');
    return result;
  } finally {
    for (const c of children) if (c.alive()) c.proc.kill('SIGKILL');
    if (sim.alive()) {
      sim.proc.kill('SIGINT');
      await sim.exited;
    }
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const [kills, seed] = process.argv.slice(2).map(Number);
  process.stdout.write(`${JSON.stringify(await run(kills || undefined, Number.isFinite(seed) ? seed : undefined), null, 2)}\n`);
}
