/**
 * Which account a journal belongs to. A journal holds one account's orders: recovery reconciles them
 * with the exchange and cancels what it finds open, so the same file run with another account's key
 * (or another exchange) would act on orders that are not there, and lose track of its own. The
 * journal records the exchange it trades on and a fingerprint of the API key (a hash with a fixed
 * prefix, never the key); a run with another refuses, naming both, unless it adopts the journal.
 * Kept in the kv table under the reserved `__journal` namespace (no schema change).
 */
import { createHash } from 'node:crypto';
import type { Logger } from '../core/logger.js';
import type { Journal } from './journal.js';

const NS = '__journal';
const KEY = 'account';
/** The fixed prefix of the key's hash: a fingerprint means nothing outside mizan's journals. */
const DOMAIN = 'mizan journal account binding v1:';

/** What a journal is bound to. `keyFingerprint` is undefined for an account without a key (paper). */
export interface AccountIdentity {
  /** The exchange's base URL (live), or `paper` (the paper exchange of a paper run). */
  exchange: string;
  keyFingerprint?: string;
}

export interface JournalBinding extends AccountIdentity {
  /** Epoch ms of the binding. */
  since: number;
}

/** sha256 of the fixed prefix and the key, first 16 hex characters. */
export function keyFingerprint(key: string): string {
  return createHash('sha256')
    .update(DOMAIN + key)
    .digest('hex')
    .slice(0, 16);
}

/** A URL compared as the same exchange whatever its trailing slashes. */
export function exchangeIdentity(url: string): string {
  return url.replace(/\/+$/, '');
}

function describeIdentity(a: AccountIdentity): string {
  return `${a.exchange} (${a.keyFingerprint ? `API key fingerprint ${a.keyFingerprint}` : 'no API key'})`;
}

export class JournalBindingError extends Error {
  constructor(
    readonly file: string,
    readonly bound: AccountIdentity,
    readonly current: AccountIdentity,
  ) {
    super(
      `journal ${file} belongs to ${describeIdentity(bound)}, not to this run's ${describeIdentity(current)}: ` +
        `its orders are another account's, and recovery would act on them. Nothing was started. ` +
        `Give this account its own journal (journal.file), or pass --adopt-journal to bind this journal to this account`,
    );
    this.name = 'JournalBindingError';
  }
}

export function readBinding(journal: Journal): JournalBinding | undefined {
  const v = journal.kvGet(NS, KEY) as Partial<JournalBinding> | undefined;
  if (!v || typeof v.exchange !== 'string' || typeof v.since !== 'number') return undefined;
  return { exchange: v.exchange, since: v.since, ...(typeof v.keyFingerprint === 'string' ? { keyFingerprint: v.keyFingerprint } : {}) };
}

const same = (a: AccountIdentity, b: AccountIdentity) => a.exchange === b.exchange && (a.keyFingerprint ?? null) === (b.keyFingerprint ?? null);

/**
 * Check (and record) the journal's account before anything acts on it. A journal without a binding
 * (new, or written before mizan kept one) is bound to this account. Another account: throws
 * JournalBindingError, unless `adopt`, which rewrites the binding and logs it.
 * Returns what happened.
 */
export function bindJournal(journal: Journal, current: AccountIdentity, o: { adopt?: boolean; logger: Logger; now: number }): 'bound' | 'same' | 'adopted' {
  const bound = readBinding(journal);
  const write = () =>
    journal.kvSet(NS, KEY, { exchange: current.exchange, ...(current.keyFingerprint ? { keyFingerprint: current.keyFingerprint } : {}), since: o.now });
  if (!bound) {
    write();
    o.logger.info({ file: journal.file, exchange: current.exchange, keyFingerprint: current.keyFingerprint ?? null }, 'journal bound to this account');
    return 'bound';
  }
  if (same(bound, current)) {
    if (o.adopt)
      o.logger.info(
        { file: journal.file, exchange: current.exchange, keyFingerprint: current.keyFingerprint ?? null },
        '--adopt-journal: the journal already belongs to this account; nothing to adopt',
      );
    return 'same';
  }
  if (!o.adopt) throw new JournalBindingError(journal.file, bound, current);
  write();
  o.logger.warn(
    {
      file: journal.file,
      from: { exchange: bound.exchange, keyFingerprint: bound.keyFingerprint ?? null, since: new Date(bound.since).toISOString() },
      to: { exchange: current.exchange, keyFingerprint: current.keyFingerprint ?? null },
    },
    'journal adopted (--adopt-journal): it now belongs to this account',
  );
  return 'adopted';
}
