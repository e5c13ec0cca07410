/**
 * `mizan account ...`: the trading-credit (prop) accounts and sub-accounts, for a person at a
 * terminal (never reachable from a strategy):
 *   mizan account packages | check <packageId> | list | active <clientId> | history <clientId> | transfers
 *   mizan account buy <packageId>                      takes the package's assurance
 *   mizan account transfer <clientId> <value> <currency>  main account -> trading-credit account
 *   mizan account connect-wallet <clientId> --credit N --currency C --count N
 *   mizan account disconnect-wallet <clientId> | renew <clientId> | close <clientId>
 * Every command talks to `--url` (default https://api.wallex.ir; `mizan sim`'s address for the
 * simulator) with the key in WALLEX_API_KEY (sent only in its header, never printed). The commands
 * that move money or change an account say what they will do and ask for `yes` on standard input;
 * `--yes` confirms in a script. A refusal or a lost answer is printed and exits 1.
 */
import type { Command } from 'commander';
import { DEFAULT_EXCHANGE_URL, intOption, urlOption } from './market/options.js';
import type { AccountCommandOptions } from './account-command.js';

export function registerAccountCommands(program: Command): Command {
  const account = program
    .command('account')
    .description('trading-credit (prop) accounts and sub-accounts: packages, buying, transfers, closing (WALLEX_API_KEY)');
  const run = async (what: string, args: unknown[], o: AccountCommandOptions) => {
    const { runAccountCommand } = await import('./account-command.js');
    process.exitCode = await runAccountCommand(what, args, o);
  };
  const common = (c: Command, writes = false) => {
    c.option('--url <url>', 'exchange or simulator address', urlOption, DEFAULT_EXCHANGE_URL);
    if (writes) c.option('--yes', 'confirm without asking (scripts)', false);
    return c;
  };
  common(account.command('packages').description('the trading-credit packages (GET /v1/prop/packages)')).action((o: AccountCommandOptions) =>
    run('packages', [], o),
  );
  common(
    account
      .command('check')
      .description('whether you can buy a package (KYC, enough assurance)')
      .argument('<packageId>', 'package id', intOption('packageId', 1, 1e9)),
  ).action((id: number, o: AccountCommandOptions) => run('check', [id], o));
  common(
    account
      .command('buy')
      .description('buy a package: its assurance leaves your main account, a trading-credit account opens')
      .argument('<packageId>', 'package id', intOption('packageId', 1, 1e9)),
    true,
  ).action((id: number, o: AccountCommandOptions) => run('buy', [id], o));
  common(account.command('list').description('your trading-credit accounts (GET /sub-accounts)')).action((o: AccountCommandOptions) => run('list', [], o));
  common(account.command('active').description("one trading-credit account's package and state").argument('<clientId>', "the account's client id")).action(
    (id: string, o: AccountCommandOptions) => run('active', [id], o),
  );
  common(account.command('history').description("one trading-credit account's history entry").argument('<clientId>', "the account's client id")).action(
    (id: string, o: AccountCommandOptions) => run('history', [id], o),
  );
  common(account.command('transfers').description('transfers from the main account to trading-credit accounts')).action((o: AccountCommandOptions) =>
    run('transfers', [], o),
  );
  common(
    account
      .command('transfer')
      .description('move money from the main account to a trading-credit account (its package currency only)')
      .argument('<clientId>', "the account's client id")
      .argument('<value>', 'amount')
      .argument('<currency>', 'currency, e.g. USDT'),
    true,
  ).action((id: string, value: string, currency: string, o: AccountCommandOptions) => run('transfer', [id, value, currency], o));
  common(
    account
      .command('connect-wallet')
      .description('let the trading-credit account draw from the main wallet: --credit per transfer, at most --count transfers')
      .argument('<clientId>', "the account's client id")
      .requiredOption('--credit <amount>', 'amount per transfer')
      .requiredOption('--currency <currency>', 'the package currency (TMN or USDT)')
      .requiredOption('--count <n>', 'most transfers', intOption('count', 1, 1000)),
    true,
  ).action((id: string, o: AccountCommandOptions) => run('connect-wallet', [id], o));
  common(
    account
      .command('disconnect-wallet')
      .description('stop the trading-credit account drawing from the main wallet')
      .argument('<clientId>', "the account's client id"),
    true,
  ).action((id: string, o: AccountCommandOptions) => run('disconnect-wallet', [id], o));
  common(
    account.command('renew').description('renew the package when it expires (its fees continue)').argument('<clientId>', "the account's client id"),
    true,
  ).action((id: string, o: AccountCommandOptions) => run('renew', [id], o));
  common(
    account
      .command('close')
      .description('close a trading-credit account: the loan and fees are paid back, the rest returns to the main account')
      .argument('<clientId>', "the account's client id"),
    true,
  ).action((id: string, o: AccountCommandOptions) => run('close', [id], o));
  return program;
}
