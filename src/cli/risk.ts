/**
 * The kill switch from the command line:
 *   mizan halt [reason] [--file journal]   nothing but cancels passes; open orders are cancelled
 *   mizan resume [reason] [--file journal] back to active
 *   mizan status [--file journal]          trading state, reason, since
 * They write and read the trading state in the bot's journal. A running bot applies a change within
 * its watch interval (watchTradingState), at once on SIGUSR2; a bot started later reads it at start.
 * The secrets this process knows (the --config's keys and tokens, the secret variables of the
 * environment: runtime/secrets.ts) are neither written into the journal nor printed.
 */
import type { Command } from 'commander';
import { existsSync } from 'node:fs';
import { SystemClock, type Clock } from '../core/clock.js';
import { scrub } from '../core/scrub.js';
import { Journal } from '../store/journal.js';
import { resolveJournalFile, JOURNAL_CONFIG_OPTION, JOURNAL_FILE_OPTION, type JournalLocation } from './journal.js';
import type { TradingStateName, TradingStateRecord } from '../risk/ports.js';

export interface RiskCommandDeps {
  out?: (text: string) => void;
  err?: (text: string) => void;
  clock?: Clock;
}

function describeState(r: TradingStateRecord | undefined): string {
  if (!r) return 'trading state: active (never changed)';
  return `trading state: ${r.state} since ${new Date(r.since).toISOString()}${r.reason ? ` (${r.reason})` : ''}`;
}

/** Write a trading state into a journal file; returns the record written. */
function setTradingState(
  file: string,
  state: TradingStateName,
  reason: string,
  clock: Clock = new SystemClock(),
  secrets: readonly string[] = [],
): TradingStateRecord {
  if (!existsSync(file)) throw new Error(`--file: journal ${JSON.stringify(file)} does not exist (use the bot's journal.file)`);
  const journal = Journal.open(file, { clock, secrets });
  try {
    const rec: TradingStateRecord = { state, reason: scrub(reason, secrets), since: clock.now() };
    journal.setTradingState(rec);
    return rec;
  } finally {
    journal.close();
  }
}

/** Read the trading state of a journal file (read-only: safe while a bot writes it). */
function readTradingState(file: string): TradingStateRecord | undefined {
  if (!existsSync(file)) throw new Error(`--file: journal ${JSON.stringify(file)} does not exist (use the bot's journal.file)`);
  const journal = Journal.open(file, { readonly: true });
  try {
    return journal.tradingState();
  } finally {
    journal.close();
  }
}

export function registerRiskCommands(program: Command, deps: RiskCommandDeps = {}): void {
  const rawOut = deps.out ?? ((t: string) => void process.stdout.write(t));
  const rawErr = deps.err ?? ((t: string) => void process.stderr.write(t));
  const clock = deps.clock ?? new SystemClock();
  // Set by each command from its --config and the environment before anything is read or printed.
  let secrets: string[] = [];
  const out = (t: string) => rawOut(scrub(t, secrets));
  const err = (t: string) => rawErr(scrub(t, secrets));
  const run = async (o: JournalLocation, fn: () => Promise<void>) => {
    try {
      const { secretsOfConfigFile } = await import('../runtime/secrets.js');
      secrets = await secretsOfConfigFile(o.config);
      await fn();
    } catch (e) {
      err(`${e instanceof Error ? e.message : String(e)}\n`);
      process.exitCode = 1;
    }
  };
  const fileOpt = JOURNAL_FILE_OPTION;
  const configOpt = JOURNAL_CONFIG_OPTION;
  // The journal to act on; the line saying which when it was not named.
  const journalOf = async (o: JournalLocation): Promise<string> => {
    const r = await resolveJournalFile(o);
    if (r.implicit) out(`${r.implicit}\n`);
    return r.file;
  };
  program
    .command('halt')
    .description('kill switch: stop all trading (only cancels pass; open orders are cancelled) until `mizan resume`')
    .argument('[reason...]', 'why, for the log and `mizan status`')
    .option(...fileOpt)
    .option(...configOpt)
    .action((reason: string[], o: JournalLocation) =>
      run(o, async () => {
        const rec = setTradingState(await journalOf(o), 'halted', reason.join(' ') || 'halted from the command line', clock, secrets);
        out(`${describeState(rec)}\nA running bot applies it within its state watch interval (at once on SIGUSR2).\n`);
      }),
    );
  program
    .command('resume')
    .description('lift a halt (or the reducing state): back to active trading')
    .argument('[reason...]', 'why, for the log')
    .option(...fileOpt)
    .option(...configOpt)
    .action((reason: string[], o: JournalLocation) =>
      run(o, async () => {
        const rec = setTradingState(await journalOf(o), 'active', reason.join(' ') || 'resumed from the command line', clock, secrets);
        out(`${describeState(rec)}\n`);
      }),
    );
  program
    .command('status')
    .description('show the trading state (active, reducing, halted), its reason and since when')
    .option(...fileOpt)
    .option(...configOpt)
    .action((o: JournalLocation) => run(o, async () => out(`${describeState(readTradingState(await journalOf(o)))}\n`)));
}
