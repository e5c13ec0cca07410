/**
 * Balances of the simulated exchange's accounts: per account and asset, `value` (held, locked
 * included) and `locked` (frozen by open orders, positions or pending withdrawals). Every module
 * of the simulator (spot matching, instant orders, margin, trading credit, withdrawals) moves money
 * only through this ledger, so `free = value - locked` is never negative and nothing is created or
 * lost except by explicit fees.
 */
import { Decimal, dgt, dlt } from '../core/decimal.js';
import { SimError } from './errors.js';

export interface LedgerEntry {
  value: Decimal;
  locked: Decimal;
}

const ZERO = new Decimal(0);

export class Ledger {
  private readonly accounts = new Map<string, Map<string, LedgerEntry>>();

  private entry(account: string, asset: string): LedgerEntry {
    let assets = this.accounts.get(account);
    if (!assets) {
      assets = new Map();
      this.accounts.set(account, assets);
    }
    let e = assets.get(asset);
    if (!e) {
      e = { value: ZERO, locked: ZERO };
      assets.set(asset, e);
    }
    return e;
  }

  /** Snapshot of one account's balances (copies). */
  balances(account: string): Record<string, LedgerEntry> {
    const out: Record<string, LedgerEntry> = {};
    for (const [asset, e] of this.accounts.get(account) ?? []) out[asset] = { value: e.value, locked: e.locked };
    return out;
  }

  get(account: string, asset: string): LedgerEntry {
    const e = this.accounts.get(account)?.get(asset);
    return e ? { value: e.value, locked: e.locked } : { value: ZERO, locked: ZERO };
  }

  free(account: string, asset: string): Decimal {
    const e = this.get(account, asset);
    return e.value.minus(e.locked);
  }

  /** Add to the held amount (deposit, fill proceeds). */
  credit(account: string, asset: string, amount: Decimal): void {
    if (amount.isNeg()) throw new RangeError(`credit of a negative amount ${amount.toFixed()} ${asset}`);
    const e = this.entry(account, asset);
    e.value = e.value.plus(amount);
  }

  /** Take from the free amount. 402 when the free amount does not cover it. */
  debitFree(account: string, asset: string, amount: Decimal): void {
    if (amount.isNeg()) throw new RangeError(`debit of a negative amount ${amount.toFixed()} ${asset}`);
    const e = this.entry(account, asset);
    if (dlt(e.value.minus(e.locked), amount)) {
      throw new SimError(402, `Insufficient ${asset} balance: ${e.value.minus(e.locked).toFixed()} free, ${amount.toFixed()} needed`);
    }
    e.value = e.value.minus(amount);
  }

  /** Freeze part of the free amount. 402 when the free amount does not cover it. */
  lock(account: string, asset: string, amount: Decimal): void {
    if (amount.isNeg()) throw new RangeError(`lock of a negative amount ${amount.toFixed()} ${asset}`);
    const e = this.entry(account, asset);
    if (dlt(e.value.minus(e.locked), amount)) {
      throw new SimError(402, `Insufficient ${asset} balance: ${e.value.minus(e.locked).toFixed()} free, ${amount.toFixed()} needed`);
    }
    e.locked = e.locked.plus(amount);
  }

  /** Release a frozen amount back to free. */
  unlock(account: string, asset: string, amount: Decimal): void {
    const e = this.entry(account, asset);
    if (amount.isNeg() || dgt(amount, e.locked)) {
      throw new RangeError(`unlock of ${amount.toFixed()} ${asset} exceeds locked ${e.locked.toFixed()}`);
    }
    e.locked = e.locked.minus(amount);
  }

  /** Spend from the frozen amount (a fill of a locked order): value and locked both go down. */
  debitLocked(account: string, asset: string, amount: Decimal): void {
    const e = this.entry(account, asset);
    if (amount.isNeg() || dgt(amount, e.locked) || dgt(amount, e.value)) {
      throw new RangeError(`debit of ${amount.toFixed()} ${asset} exceeds locked ${e.locked.toFixed()}`);
    }
    e.locked = e.locked.minus(amount);
    e.value = e.value.minus(amount);
  }

  /** Every account id that has a balance. */
  accountIds(): string[] {
    return [...this.accounts.keys()];
  }
}
