/**
 * Rule 1b, the account read. An intent that spends a balance (a spot or instant order, a margin
 * open or collateral top-up) is denied, by the balance rule's name, until the strategy's account has
 * been read from the exchange: before that read the kernel's ledger holds no balance to check it
 * against. At a restart the fills of the journal and those that happened while the bot was down
 * were booked onto nothing, and a denial could say "only -0.0012 BTC is free"; the ledger now books
 * no fill before the read (which holds them all) and this rule says it waits for the read instead.
 * A live or paper bot reads every account at start, then every sync; only a failed start read (the
 * exchange refusing or slow) leaves an account unread for a while. Backtests read the simulated
 * exchange's ledger itself: always read.
 */
import type { RiskPorts } from '../ports.js';
import type { CheckState, RiskRule } from '../rule.js';

export class AccountReadRule implements RiskRule {
  readonly name = 'balance';

  constructor(private readonly ports: RiskPorts) {}

  check(s: CheckState): string | undefined {
    const k = s.intent.kind;
    if (k !== 'order' && k !== 'instant' && k !== 'marginOpen' && k !== 'marginAddCollateral') return undefined;
    if (this.ports.balancesRead?.(s.account) ?? true) return undefined;
    return `the balances of ${s.account} have not been read from the exchange yet: waiting for the first read of the account (no ${k} intent is checked before it)`;
  }
}
