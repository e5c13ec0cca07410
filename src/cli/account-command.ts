/** What `mizan account ...` runs (registered in account.ts): one REST call, printed as a table or lines. */
import { createInterface } from 'node:readline';
import { WallexRestClient } from '../exchange/rest/client.js';

/** Options of every `mizan account` command (connect-wallet's own among them). */
export interface AccountCommandOptions {
  url: string;
  yes?: boolean;
  /** connect-wallet's options. */
  credit?: string;
  currency?: string;
  count?: number;
}

const out = (line = '') => process.stdout.write(`${line}\n`);

function table(head: string[], rows: string[][]): void {
  const w = head.map((h, c) => Math.max(h.length, ...rows.map((r) => (r[c] ?? '').length)));
  const line = (r: string[]) =>
    r
      .map((v, c) => v.padEnd(w[c]!))
      .join('  ')
      .trimEnd();
  out(line(head));
  for (const r of rows) out(line(r));
}

/** Reads one line from standard input; true only for `yes`. */
async function confirm(what: string): Promise<boolean> {
  out(`${what}`);
  process.stdout.write('Type yes to continue: ');
  const rl = createInterface({ input: process.stdin });
  const answer = await new Promise<string | undefined>((resolve) => {
    rl.once('line', (l) => resolve(l));
    rl.once('close', () => resolve(undefined));
  });
  rl.close();
  out();
  return answer?.trim().toLowerCase() === 'yes';
}

/** Runs one command; resolves to the exit code. */
export async function runAccountCommand(what: string, args: unknown[], o: AccountCommandOptions): Promise<number> {
  const apiKey = process.env.WALLEX_API_KEY?.trim();
  if (!apiKey) {
    process.stderr.write("mizan account: set WALLEX_API_KEY to the main account's API key (it is sent only in the x-api-key header)\n");
    return 1;
  }
  const client = new WallexRestClient({ baseUrl: o.url, apiKey, retries: 1 });
  const id = String(args[0] ?? '');
  const ask = async (text: string): Promise<boolean> => {
    if (o.yes === true) return true;
    if (await confirm(text)) return true;
    process.stderr.write('mizan account: cancelled, nothing was sent (answer yes, or pass --yes in a script)\n');
    return false;
  };
  try {
    switch (what) {
      case 'packages': {
        const list = await client.getPropPackages();
        table(
          ['id', 'title', 'currency', 'assurance', 'loan', 'days', 'daily fee', 'status'],
          list.map((p) => [
            String(p.id),
            p.title,
            p.currency,
            p.assurance.toFixed(),
            p.loan.toFixed(),
            String(p.expireDays),
            p.dailyFeeAfterDiscount?.toFixed() ?? '-',
            p.status,
          ]),
        );
        return 0;
      }
      case 'check': {
        const checks = await client.checkPropAvailability(Number(args[0]));
        for (const c of checks) out(`${c.isValid ? 'ok ' : 'NO '} ${c.key}`);
        return checks.every((c) => c.isValid) ? 0 : 1;
      }
      case 'buy': {
        const pid = Number(args[0]);
        const pkg = (await client.getPropPackages()).find((p) => p.id === pid);
        const terms = pkg
          ? `${pkg.assurance.toFixed()} ${pkg.currency} assurance leaves your main account for ${pkg.loan.toFixed()} ${pkg.currency} of credit, ${pkg.expireDays} days`
          : 'the package is not in the package list';
        if (!(await ask(`Buy trading-credit package ${pid}: ${terms}.`))) return 1;
        const sub = await client.buyPropPackage(pid);
        out(
          `bought: trading-credit account ${sub.clientId} (${sub.title}); trade it with account: prop:${sub.clientId} and its own API key (config accounts:)`,
        );
        return 0;
      }
      case 'list': {
        const subs = await client.getSubAccounts();
        table(
          ['client id', 'title', 'active', 'created'],
          subs.map((s) => [s.clientId, s.title, s.isActive ? 'yes' : 'no', s.createdAt ?? '-']),
        );
        return 0;
      }
      case 'active': {
        const a = await client.getActivePropAccount(id);
        const u = a.userPackageDetail;
        out(
          `${a.packageDetail.title} (package ${a.packageDetail.id}): ${a.packageDetail.loan.toFixed()} ${a.packageDetail.currency} credit on ${a.packageDetail.assurance.toFixed()} assurance`,
        );
        out(`status ${u.status}, day ${u.openDays ?? '-'} of ${u.totalDays ?? '-'}, expires ${u.expireAt ?? '-'}`);
        out(
          `profit ${u.profit?.toFixed() ?? '-'} (${u.profitPercentage?.toFixed() ?? '-'}%), warning at ${u.warningLimit?.toFixed() ?? '-'}, closed at ${u.liquidityLimit?.toFixed() ?? '-'}`,
        );
        out(`wallet connection ${u.connectToWallet ?? 'none'}`);
        for (const al of a.alerts) out(`alert ${al.type}: ${al.message ?? ''}`);
        return 0;
      }
      case 'history': {
        const h = await client.getPropAccountHistory(id);
        out(
          `${h.clientId} ${h.packageTitle ?? ''}: ${h.status}${h.closeReason ? ` (${h.closeReason})` : ''}, start ${h.startBalance?.toFixed() ?? '-'} ${h.currency}, final ${h.finalBalance?.toFixed() ?? '-'}, profit ${h.profit?.toFixed() ?? '-'}`,
        );
        return 0;
      }
      case 'transfers': {
        const t = await client.getSubAccountTransfers();
        table(
          ['id', 'to', 'currency', 'value', 'at'],
          t.items.map((x) => [String(x.uniqueId), x.destinationClientId ?? '-', x.currency, x.value?.toFixed() ?? '-', x.createdAt ?? '-']),
        );
        return 0;
      }
      case 'transfer': {
        const [, value, currency] = args as [string, string, string];
        if (!(await ask(`Transfer ${value} ${currency} from your main account to trading-credit account ${id}.`))) return 1;
        await client.transferToSubAccount({ subAccountId: id, value, currency });
        out(`transferred ${value} ${currency} to ${id}`);
        return 0;
      }
      case 'connect-wallet': {
        const r = { credit: String(o.credit), currency: String(o.currency), usageCount: Number(o.count) };
        if (!(await ask(`Let trading-credit account ${id} draw ${r.credit} ${r.currency} from your main wallet, at most ${r.usageCount} times.`))) return 1;
        const c = await client.connectPropWallet(id, r);
        out(`connected: ${c.credit.toFixed()} ${c.currency} per transfer, ${c.usedCount} of ${c.usageCount} used`);
        return 0;
      }
      case 'disconnect-wallet':
        if (!(await ask(`Disconnect trading-credit account ${id} from your main wallet.`))) return 1;
        await client.disconnectPropWallet(id);
        out(`disconnected ${id} from the wallet`);
        return 0;
      case 'renew':
        if (!(await ask(`Renew trading-credit account ${id} when it expires (its fees continue).`))) return 1;
        await client.enablePropRenew(id);
        out(`renewal enabled for ${id}`);
        return 0;
      case 'close': {
        if (!(await ask(`Close trading-credit account ${id}: its holdings are valued, the loan and fees paid back, the rest returns to your main account.`)))
          return 1;
        const c = await client.closePropAccount(id);
        out(`closed ${c.clientId}: final balance ${c.finalBalance.toFixed()} ${c.currency} (started at ${c.startBalance.toFixed()})`);
        return 0;
      }
      default:
        process.stderr.write(`mizan account: unknown command ${JSON.stringify(what)}\n`);
        return 1;
    }
  } catch (err) {
    process.stderr.write(`mizan account ${what}: ${err instanceof Error ? err.message : String(err)}\n`);
    return 1;
  } finally {
    client.close();
  }
}
