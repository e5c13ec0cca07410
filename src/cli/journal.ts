/**
 * `mizan journal orders|fills|positions|pnl [--strategy] [--since] [--file | --config]`: read the journal and
 * print tables. The journal is opened read-only, so it can be read while a bot is writing it (WAL).
 *
 * Which journal (here and for `mizan halt/resume/status`): `--file <path>`, or `--config <file>`
 * (the journal.file of that bot's config). With neither, the one that exists of the default
 * journal.file (`.mizan/journal.sqlite`) and the journal of config/default.yaml (what `npm start`
 * writes, `.mizan/paper.sqlite`); when both exist the command refuses to guess.
 * What is printed has the secrets this process knows (the --config's, the environment's:
 * runtime/secrets.ts) replaced by `[REDACTED]`, also in a journal written before they were removed.
 */
import type { Command } from 'commander';
import { existsSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import { DEFAULT_JOURNAL_FILE as CONFIG_DEFAULT_JOURNAL } from '../config/defaults.js';
import type { Clock } from '../core/clock.js';
import { SystemClock } from '../core/clock.js';
import { ZERO } from '../core/decimal.js';
import { scrub } from '../core/scrub.js';
import { Journal } from '../store/journal.js';
import { computePnl, journalSplit } from '../store/pnl.js';
import { journalFreshAccounts } from '../store/fresh-accounts.js';
import type { JournalQueries } from '../store/queries.js';
import { parseInstrumentArg } from '../store/instruments.js';
import type { JournalPnlRow } from '../store/pnl.js';
import { formatTs, renderTable } from '../store/table.js';
import type { FillRow, OrderRow, PositionRow, QueryFilter } from '../store/types.js';

const DEFAULT_JOURNAL_FILE = CONFIG_DEFAULT_JOURNAL;
/** The config `npm start` runs. */
const NPM_START_CONFIG = 'config/default.yaml';

export interface JournalLocation {
  file?: string;
  config?: string;
}

export interface ResolvedJournal {
  file: string;
  /** How it was chosen, when neither --file nor --config was given (for the user to see). */
  implicit?: string;
}

/** The journal file a command reads or writes: see the file comment. Throws naming what to pass. */
export async function resolveJournalFile(o: JournalLocation, cwd: string = process.cwd()): Promise<ResolvedJournal> {
  // The config reader (and its YAML parser) is loaded when a command runs, not when `mizan` starts.
  const { journalFileOf } = await import('../config/load.js');
  const show = (f: string) => relative(cwd, f) || f;
  if (o.config !== undefined) {
    const fromConfig = journalFileOf(o.config, { baseDir: cwd });
    if (o.file !== undefined && resolve(cwd, o.file) !== fromConfig) {
      throw new Error(`--file ${o.file} and --config ${o.config} name different journals (the config's journal.file is ${show(fromConfig)}): give one of them`);
    }
    if (!existsSync(fromConfig)) throw new Error(`journal ${show(fromConfig)} (journal.file of ${o.config}) does not exist: has that bot run here?`);
    return { file: fromConfig };
  }
  if (o.file !== undefined) {
    const f = resolve(cwd, o.file);
    if (!existsSync(f))
      throw new Error(
        `--file: journal ${JSON.stringify(o.file)} does not exist (use --file <path> for a bot's journal.file, or --config <file> to take it from the bot's config)`,
      );
    return { file: f };
  }
  const candidates: { file: string; what: string }[] = [{ file: resolve(cwd, DEFAULT_JOURNAL_FILE), what: 'the default journal.file' }];
  const npmStart = resolve(cwd, NPM_START_CONFIG);
  if (existsSync(npmStart)) {
    const f = journalFileOf(npmStart, { baseDir: cwd });
    if (f !== candidates[0]!.file) candidates.push({ file: f, what: `the journal of ${NPM_START_CONFIG}, what npm start writes` });
  }
  const found = candidates.filter((c) => existsSync(c.file));
  const list = (cs: typeof candidates) => cs.map((c) => `${show(c.file)} (${c.what})`).join(' and ');
  if (found.length === 1)
    return { file: found[0]!.file, implicit: `journal ${show(found[0]!.file)} (${found[0]!.what}; --config <file> or --file <path> for another)` };
  if (found.length === 0)
    throw new Error(
      `no journal here: ${list(candidates)} ${candidates.length > 1 ? 'do' : 'does'} not exist; name the bot's config with --config <file> or its journal with --file <path>`,
    );
  throw new Error(`two journals here, ${list(found)}: say which bot with --config <file> or --file <path>`);
}

export interface JournalCommandDeps {
  /** Where tables go (default: stdout). */
  out?: (text: string) => void;
  /** Where the note saying which journal was read goes when none was named (default: stderr, so tables pipe clean). */
  note?: (text: string) => void;
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
  file?: string;
  config?: string;
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
  // A stop order's trigger, as the bot recorded it with the order (STOP_MARKET has no price).
  { title: 'stop', get: (o: OrderRow) => stopOf(o) ?? '-', align: 'right' as const },
  { title: 'quantity', get: (o: OrderRow) => o.quantity.toFixed(), align: 'right' as const },
  { title: 'executed', get: (o: OrderRow) => o.executedQty.toFixed(), align: 'right' as const },
  { title: 'status', get: (o: OrderRow) => o.status },
  { title: 'venue', get: (o: OrderRow) => o.venue },
];

function stopOf(o: OrderRow): string | undefined {
  const v = (o.detail as { stopPrice?: unknown } | null | undefined)?.stopPrice;
  return typeof v === 'string' ? v : undefined;
}

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
  // Amounts rounded for display to the precision of the fills' own amounts (the exact values stay in the journal).
  { title: 'avg price', get: (p: JournalPnlRow) => (p.position.isZero() ? '-' : p.avgPrice.toDecimalPlaces(p.priceDp).toFixed()), align: 'right' as const },
  { title: 'fees', get: (p: JournalPnlRow) => `${p.fees.toDecimalPlaces(p.quoteDp).toFixed()} ${p.quote}`, align: 'right' as const },
  { title: 'realized', get: (p: JournalPnlRow) => `${p.realized.toDecimalPlaces(p.quoteDp).toFixed()} ${p.quote}`, align: 'right' as const },
];

/** A field of a margin position's stored JSON as text (a money object's value with its currency). */
function field(p: PositionRow, key: string): string {
  const v = p.position[key];
  if (v && typeof v === 'object' && 'value' in v) {
    const m = v as { value?: unknown; currency?: unknown };
    return `${String(m.value)}${typeof m.currency === 'string' ? ` ${m.currency}` : ''}`;
  }
  return typeof v === 'string' || typeof v === 'number' ? String(v) : '-';
}

const positionColumns = [
  { title: 'updated (UTC)', get: (p: PositionRow) => formatTs(p.updatedTs) },
  { title: 'id', get: (p: PositionRow) => String(p.id), align: 'right' as const },
  { title: 'strategy', get: (p: PositionRow) => p.strategy ?? '-' },
  { title: 'market', get: (p: PositionRow) => p.market },
  { title: 'side', get: (p: PositionRow) => field(p, 'side') },
  { title: 'state', get: (p: PositionRow) => p.state },
  { title: 'reason', get: (p: PositionRow) => field(p, 'closeReason') },
  {
    title: 'open',
    get: (p: PositionRow) => (p.position.openFilledPrice !== undefined ? field(p, 'openFilledPrice') : field(p, 'openPrice')),
    align: 'right' as const,
  },
  { title: 'close', get: (p: PositionRow) => field(p, 'closeFilledPrice'), align: 'right' as const },
  { title: 'collateral', get: (p: PositionRow) => field(p, 'collateral'), align: 'right' as const },
  { title: 'profit', get: (p: PositionRow) => field(p, 'profit'), align: 'right' as const },
];

function pnlTotals(rows: readonly JournalPnlRow[]): string {
  const byQuote = new Map<string, { sum: JournalPnlRow['realized']; dp: number }>();
  for (const r of rows) {
    const t = byQuote.get(r.quote) ?? { sum: ZERO, dp: 0 };
    byQuote.set(r.quote, { sum: t.sum.plus(r.realized), dp: Math.max(t.dp, r.quoteDp) });
  }
  return [...byQuote].map(([q, v]) => `total realized ${q}: ${v.sum.toDecimalPlaces(v.dp).toFixed()}`).join('\n') + (byQuote.size ? '\n' : '');
}

/** The options naming the journal, the same in `journal`, `halt`, `resume` and `status`. */
export const JOURNAL_FILE_OPTION = [
  '-f, --file <journal>',
  `the bot's journal (SQLite; default: ${DEFAULT_JOURNAL_FILE} or ${NPM_START_CONFIG}'s journal, whichever exists)`,
] as const;
export const JOURNAL_CONFIG_OPTION = ['-c, --config <file>', "the bot's config: its journal.file"] as const;

export function registerJournalCommand(program: Command, deps: JournalCommandDeps = {}): Command {
  const out = deps.out ?? ((t: string) => void process.stdout.write(t));
  const note = deps.note ?? ((t: string) => void process.stderr.write(t));
  const clock = deps.clock ?? new SystemClock();

  const withJournal = async (opts: Opts, fn: (j: Journal, filter: QueryFilter) => string) => {
    const where = await resolveJournalFile(opts);
    const filter: QueryFilter = {};
    if (opts.strategy !== undefined) filter.strategy = opts.strategy;
    if (opts.symbol !== undefined) filter.symbol = opts.symbol;
    if (opts.since !== undefined) filter.since = parseSince(opts.since, clock.now());
    const { secretsOfConfigFile } = await import('../runtime/secrets.js');
    const secrets = await secretsOfConfigFile(opts.config);
    const j = Journal.open(where.file, { readonly: true, clock });
    try {
      if (where.implicit) note(`${where.implicit}\n`);
      out(scrub(fn(j, filter), secrets));
    } finally {
      j.close();
    }
  };

  const journal = program.command('journal').description('read the journal: orders, fills, margin positions, realised PnL');
  const common = (c: Command) =>
    c
      .option(...JOURNAL_FILE_OPTION)
      .option(...JOURNAL_CONFIG_OPTION)
      .option('--strategy <name>', 'only this strategy instance')
      .option('--symbol <symbol>', 'only this market')
      .option('--since <time>', 'from this time: YYYY-MM-DD, ISO time, or 30m / 24h / 7d / 2w back');

  common(journal.command('orders').description('orders, oldest first'))
    .option('--open', 'only orders that are not final')
    .action((opts: Opts & { open?: boolean }) =>
      withJournal(opts, (j, f) => {
        const rows = opts.open
          ? j
              .openOrders()
              .filter(
                (o) => (!f.strategy || o.strategy === f.strategy) && (!f.symbol || o.symbol === f.symbol) && (f.since === undefined || o.createdTs >= f.since),
              )
          : j.orders(f);
        return rows.length ? renderTable(rows, orderColumns) + `${rows.length} orders\n` : 'no orders\n';
      }),
    );

  common(journal.command('fills').description('fills, oldest first')).action((opts: Opts) =>
    withJournal(opts, (j, f) => {
      const rows = j.fills(f);
      return rows.length ? renderTable(rows, fillColumns) + `${rows.length} fills\n` : 'no fills\n';
    }),
  );

  common(
    journal.command('positions').description('margin positions, by id: owning strategy, state, prices, collateral and profit as the exchange last gave them'),
  ).action((opts: Opts) =>
    withJournal(opts, (j, f) => {
      const rows = j
        .positions()
        .filter((p) => (!f.strategy || p.strategy === f.strategy) && (!f.symbol || p.market === f.symbol) && (f.since === undefined || p.updatedTs >= f.since));
      return rows.length ? renderTable(rows, positionColumns) + `${rows.length} margin positions\n` : 'no margin positions\n';
    }),
  );

  common(journal.command('pnl').description('realised PnL per strategy and market (average cost, fees included)'))
    .option(
      '--market <SYMBOL=BASE/QUOTE>',
      "a market's base and quote, for journals that do not record them (repeatable)",
      (v: string, acc: string[]) => [...acc, v],
      [] as string[],
    )
    .action((opts: Opts & { market: string[] }) =>
      withJournal(opts, (j, f) => {
        const rows = computePnl(j, { ...f, split: journalSplit(j, new Map(opts.market.map(parseInstrumentArg))) });
        return rows.length ? renderTable(rows, pnlColumns) + pnlTotals(rows) + freshAccountsLine(j, f.until) : 'no fills\n';
      }),
    );
  return journal;
}

/**
 * For a paper journal: which account the positions are, since each paper run starts a fresh one
 * (computePnl ends every position at a run's start); nothing for a live journal.
 */
function freshAccountsLine(j: JournalQueries, until: number | undefined): string {
  const starts = journalFreshAccounts(j).filter((t) => until === undefined || t < until);
  const last = starts.at(-1);
  if (last === undefined) return '';
  const runs = starts.length === 1 ? 'one paper run' : `${starts.length} paper runs`;
  return `positions: the paper account of the run started ${new Date(last).toISOString()} (${runs}; each starts a fresh account, fills, fees and realized count every run)\n`;
}
