/**
 * WithdrawalDesk: fiat (TMN) withdrawals to a registered IBAN (spec 2.11a, 4.2). The wire server's
 * auth already refuses keys without withdraw permission on routes marked `auth: 'withdraw'`; the desk
 * checks again so in-process use is just as safe. Refusals, in order, each leaving every balance as it
 * was:
 * - 403: the key lacks withdraw permission; the key has no permitted IPs (they are mandatory with
 *   withdraw permission); the caller's IP is not among them.
 * - 422 `iban`: not one of the account's IBAN ids, or the IBAN is not ACCEPTED.
 * - 422 `value`: not a positive whole number of Toman, or above what is left of the IBAN's daily
 *   amount today (`withdraw_available_amount`).
 * - 402: the free TMN balance does not cover it.
 * An accepted request locks the amount (it stays in `value` and `locked` while `pending`), lowers the
 * IBAN's available amount, and is split into transfers of at most `transferMax` (`details`). The fee
 * (default 0) is taken from the amount paid out. `complete()` settles it (the locked amount leaves).
 */
import { createHash } from 'node:crypto';
import { Decimal } from '../core/decimal.js';
import type { Clock } from '../core/clock.js';
import { silentLogger, type Logger } from '../core/logger.js';
import type { Ledger } from './ledger.js';
import { simErrors } from './errors.js';
import type { Permission } from './wire/route.js';
import type { AccountExtras } from './account-extras.js';
import { isoSeconds } from './margin/ports.js';

export interface WithdrawalAuth {
  permissions: readonly Permission[];
  ip: string;
  permittedIps: readonly string[];
}

export interface WithdrawalRequest {
  /** IBAN id (spec: `iban`, a number). */
  iban: number;
  /** Amount in TMN (spec: `value`). */
  value: Decimal;
}

export interface WithdrawalDeskDeps {
  ledger: Ledger;
  extras: AccountExtras;
  clock: Clock;
  /** Fee for an amount; default none. */
  fee?: (amount: Decimal) => Decimal;
  /** Largest single bank transfer; default 50,000,000 TMN. */
  transferMax?: Decimal;
  idSeed?: string;
  logger?: Logger;
}

export interface WireWithdrawal {
  amount: number;
  fee: number;
  tracking_code: string;
  created_at: string;
  status: string;
  iban: Record<string, unknown>;
  details: { value: number; status: string }[];
}

interface Pending {
  account: string;
  amount: Decimal;
  record: WireWithdrawal;
}

const CURRENCY = 'TMN';

export class WithdrawalDesk {
  private readonly all = new Map<string, Pending>();
  private readonly log: Logger;
  private seq = 0;

  constructor(private readonly deps: WithdrawalDeskDeps) {
    this.log = deps.logger ?? silentLogger;
  }

  request(account: string, req: WithdrawalRequest, auth: WithdrawalAuth): WireWithdrawal {
    if (!auth.permissions.includes('withdraw')) throw simErrors.forbidden('This API key has no withdraw permission');
    if (auth.permittedIps.length === 0) throw simErrors.forbidden('A key with withdraw permission needs permitted IPs');
    if (!auth.permittedIps.includes(auth.ip)) throw simErrors.forbidden(`IP ${auth.ip} is not permitted for this API key`);
    const iban = this.deps.extras.findIban(account, req.iban);
    if (!iban) throw simErrors.invalid({ iban: [`iban ${req.iban} is not one of this account's IBANs`] });
    if (iban.status !== 'ACCEPTED') throw simErrors.invalid({ iban: [`iban ${req.iban} is ${iban.status}, not ACCEPTED`] });
    const value = req.value;
    if (value.lte(0) || !value.isInteger())
      throw simErrors.invalid({ value: [`value must be a positive whole number of ${CURRENCY}, got ${value.toFixed()}`] });
    const left = this.deps.extras.available(iban);
    if (value.gt(left))
      throw simErrors.invalid({ value: [`value ${value.toFixed()} is above the ${left.toFixed()} ${CURRENCY} left of today's amount for iban ${iban.id}`] });
    this.deps.ledger.lock(account, CURRENCY, value); // 402 when the free balance is short
    this.deps.extras.consume(iban, value);
    const fee = this.deps.fee?.(value) ?? new Decimal(0);
    const now = this.deps.clock.now();
    const code = createHash('sha256')
      .update(`${this.deps.idSeed ?? 'mizan-sim'}:wd:${++this.seq}`)
      .digest('hex')
      .slice(0, 12)
      .toUpperCase();
    const record: WireWithdrawal = {
      amount: value.toNumber(),
      fee: fee.toNumber(),
      tracking_code: code,
      created_at: isoSeconds(now),
      status: 'pending',
      iban: this.deps.extras.ibanWire(iban),
      details: split(value.minus(fee), this.deps.transferMax ?? new Decimal(50_000_000)),
    };
    this.all.set(code, { account, amount: value, record });
    this.log.info({ account, iban: iban.id, value: value.toFixed(), tracking: code }, 'withdrawal requested');
    return record;
  }

  list(account: string): WireWithdrawal[] {
    return [...this.all.values()].filter((w) => w.account === account).map((w) => w.record);
  }

  /** Settles a pending withdrawal: the locked amount leaves the account; status `done`. */
  complete(trackingCode: string): WireWithdrawal {
    const w = this.all.get(trackingCode);
    if (!w) throw simErrors.notFound(`withdrawal ${JSON.stringify(trackingCode)} not found`);
    if (w.record.status !== 'pending') throw simErrors.invalid({ tracking_code: [`withdrawal ${trackingCode} is ${w.record.status}`] });
    this.deps.ledger.debitLocked(w.account, CURRENCY, w.amount);
    w.record = { ...w.record, status: 'done', details: w.record.details.map((x) => ({ ...x, status: 'done' })) };
    return w.record;
  }
}

function split(amount: Decimal, max: Decimal): { value: number; status: string }[] {
  const out: { value: number; status: string }[] = [];
  let left = amount;
  while (left.gt(0)) {
    const part = Decimal.min(left, max);
    out.push({ value: part.toNumber(), status: 'pending' });
    left = left.minus(part);
  }
  return out;
}
