/**
 * `mizan journal orders|fills|pnl [--strategy] [--since] [--file]`: read the journal and print tables.
 * The journal is opened read-only, so it can be read while a bot is writing it (WAL).
 */
import type { Command } from 'commander';
import { existsSync } from 'node:fs';
import type { Clock } from '../core/clock.js';
import { SystemClock } from '../core/clock.js';
import { ZERO } from '../core/decimal.js';
import { Journal } from '../store/journal.js';
import { computePnl } from '../store/pnl.js';
import type { JournalPnlRow } from '../store/pnl.js';
import { formatTs, renderTable } from '../store/table.js';
import type { FillRow, OrderRow, QueryFilter } from '../store/types.js';

export const DEFAULT_JOURNAL_FILE = '.mizan/journal.sqlite';

export interface JournalCommandDeps {
  /** Where tables go (default: stdout). */
  out?: (text: string) => void;
  /** For relative --since values like `24h`. */
  clock?: Clock;
}

const UNITS: Record<string, number> = { m: 60_000, h: 3_600_000, d: 86_400_000, w: 7 * 86_400_000 };

/** `--since`: `2024-01-31`, an ISO time with a zone, or a span back from now (`30m`, `24h`, `7d`, `2w`). */
export function parseSince(value: string, now: number): number {
  const rel = /^(\d+)([mhdw])$/.exec(value);
  if (rel) return now - Number(rel[1]) * (UNITS[rel[2] ?? 'd'] ?? 0);
  if (/^\d{4}-\d{2}-\d{2}$/.test(value)) return Date.parse(`${value}T00:00:00Z`);
  if (/^\d{4}-\d{2}-\d{2}T[\d:.]+(Z|[+-]\d{2}:\d{2})$/.test(value)) {
    const ms = Date.parse(value);
    if (Number.isFinite(ms)) return ms;
  }
  throw new RangeError(`--since: ${JSON.stringify(value)} is not a time (YYYY-MM-DD, an ISO time with a zone, or 30m / 24h / 7d / 2w)`);
}

interface Opts {
  file: string;
  strategy?: string;
  since?: string;
  symbol?: string;
}

const orderColumns = [
  { title: 'created (UTC)', get: (o: OrderRow) => formatTs(o.createdTs) },
  { title: 'client id', get: (o: OrderRow) => o.clientId },
  { title: 'strategy', get: (o: OrderRow) => o.strategy },
  { title: 'symbol', get: (o: OrderRow) => o.symbol },
  { title: 'side', get: (o: OrderRow) => o.side },
  { title: 'type', get: (o: OrderRow) => o.type },
  { title: 'price', get: (o: OrderRow) => o.price?.toFixed() ?? '-', align: 'right' as const },
  { title: 'quantity', get: (o: OrderRow) => o.quantity.toFixed(), align: 'right' as const },
  { title: 'executed', get: (o: OrderRow) => o.executedQty.toFixed(), align: 'right' as const },
  { title: 'status', get: (o: OrderRow) => o.status },
  { title: 'venue', get: (o: OrderRow) => o.venue },
];

const fillColumns = [
  { title: 'time (UTC)', get: (f: FillRow) => formatTs(f.ts) },
  { title: 'client id', get: (f: FillRow) => f.clientId },
  { title: 'strategy', get: (f: FillRow) => f.strategy },
  { title: 'symbol', get: (f: FillRow) => f.symbol },
  { title: 'side', get: (f: FillRow) => f.side },
  { title: 'price', get: (f: FillRow) => f.price.toFixed(), align: 'right' as const },
  { title: 'quantity', get: (f: FillRow) => f.quantity.toFixed(), align: 'right' as const },
  { title: 'value', get: (f: FillRow) => f.price.mul(f.quantity).toFixed(), align: 'right' as const },
  { title: 'fee', get: (f: FillRow) => `${f.fee.toFixed()} ${f.feeAsset}`, align: 'right' as const },
];

const pnlColumns = [
  { title: 'strategy', get: (p: JournalPnlRow) => p.strategy },
  { title: 'symbol', get: (p: JournalPnlRow) => p.symbol },
  { title: 'fills', get: (p: JournalPnlRow) => String(p.fills), align: 'right' as const },
  { title: 'position', get: (p: JournalPnlRow) => p.position.toFixed(), align: 'right' as const },
  { title: 'avg price', get: (p: JournalPnlRow) => (p.position.isZero() ? '-' : p.avgPrice.toDecimalPlaces(8).toFixed()), align: 'right' as const },
  { title: 'fees', get: (p: JournalPnlRow) => `${p.fees.toFixed()} ${p.quote}`, align: 'right' as const },
  { title: 'realized', get: (p: JournalPnlRow) => `${p.realized.toFixed()} ${p.quote}`, align: 'right' as const },
];

function pnlTotals(rows: readonly JournalPnlRow[]): string {
  const byQuote = new Map<string, JournalPnlRow['realized']>();
  for (const r of rows) byQuote.set(r.quote, (byQuote.get(r.quote) ?? ZERO).plus(r.realized));
  return [...byQuote].map(([q, v]) => `total realized ${q}: ${v.toFixed()}`).join('\n') + (byQuote.size ? '\n' : '');
}

export function registerJournalCommand(program: Command, deps: JournalCommandDeps = {}): Command {
  const out = deps.out ?? ((t: string) => void process.stdout.write(t));
  const clock = deps.clock ?? new SystemClock();

  const withJournal = (opts: Opts, fn: (j: Journal, filter: QueryFilter) => string) => {
    if (!existsSync(opts.file)) throw new Error(`journal file ${opts.file} does not exist (use --file to point at one)`);
    const filter: QueryFilter = {};
    if (opts.strategy !== undefined) filter.strategy = opts.strategy;
    if (opts.symbol !== undefined) filter.symbol = opts.symbol;
    if (opts.since !== undefined) filter.since = parseSince(opts.since, clock.now());
    const j = Journal.open(opts.file, { readonly: true, clock });
    try {
      out(fn(j, filter));
    } finally {
      j.close();
    }
  };

  const journal = program.command('journal').description('read the journal: orders, fills, realised PnL');
  const common = (c: Command) =>
    c
      .option('--file <path>', 'journal file', DEFAULT_JOURNAL_FILE)
      .option('--strategy <name>', 'only this strategy instance')
      .option('--symbol <symbol>', 'only this market')
      .option('--since <time>', 'from this time: YYYY-MM-DD, ISO time, or 30m / 24h / 7d / 2w back');

  common(journal.command('orders').description('orders, oldest first'))
    .option('--open', 'only orders that are not final')
    .action((opts: Opts & { open?: boolean }) =>
      withJournal(opts, (j, f) => {
        const rows = opts.open ? j.openOrders().filter((o) => (!f.strategy || o.strategy === f.strategy) && (!f.symbol || o.symbol === f.symbol) && (f.since === undefined || o.createdTs >= f.since)) : j.orders(f);
        return rows.length ? renderTable(rows, orderColumns) + `${rows.length} orders\n` : 'no orders\n';
      }),
    );

  common(journal.command('fills').description('fills, oldest first')).action((opts: Opts) =>
    withJournal(opts, (j, f) => {
      const rows = j.fills(f);
      return rows.length ? renderTable(rows, fillColumns) + `${rows.length} fills\n` : 'no fills\n';
    }),
  );

  common(journal.command('pnl').description('realised PnL per strategy and market (average cost, fees included)')).action((opts: Opts) =>
    withJournal(opts, (j, f) => {
      const rows = computePnl(j, f);
      return rows.length ? renderTable(rows, pnlColumns) + pnlTotals(rows) : 'no fills\n';
    }),
  );
  return journal;
}
