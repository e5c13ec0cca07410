/**
 * `mizan orders [--journal <file> | --config <file>] [--url] [--market] [--side] [--type] [--from]
 * [--to] [--pages N]`: the exchange's order history (`GET /v1/account/orders`, newest first) beside
 * the journal's view of each order, so a person sees what the exchange did that the journal did
 * not record (start-up recovery runs the same comparison: runtime/history-check.ts).
 * The account's key comes from `WALLEX_API_KEY` (sent only in the request header, never printed;
 * output is scrubbed of it). The journal is opened read-only, as `mizan journal` opens it.
 */
import type { Command } from 'commander';
import { SystemClock } from '../core/clock.js';
import { ParameterError } from '../core/errors.js';
import { scrub } from '../core/scrub.js';
import type { OrderType, Side, SpotOrder } from '../core/types/index.js';
import { WallexRestClient } from '../exchange/rest/client.js';
import { Journal } from '../store/journal.js';
import { formatTs, renderTable } from '../store/table.js';
import type { OrderRow } from '../store/types.js';
import { resolveJournalFile } from './journal.js';
import { DEFAULT_EXCHANGE_URL, urlOption } from './market/options.js';

interface Opts {
  journal?: string;
  config?: string;
  url: string;
  market?: string;
  side?: string;
  type?: string;
  from?: string;
  to?: string;
  pages: number;
}

export interface OrdersCommandDeps {
  out?: (text: string) => void;
  note?: (text: string) => void;
  env?: Record<string, string | undefined>;
}

interface Line {
  o: SpotOrder;
  row: OrderRow | undefined;
}

function compare(l: Line): string {
  if (!l.row) return 'not in journal';
  const final = !l.o.active;
  return l.row.executedQty.eq(l.o.executedQty) && l.row.final === final ? 'same' : 'differs';
}

const columns = [
  { title: 'created (UTC)', get: (l: Line) => (l.o.createdAt ? l.o.createdAt.slice(0, 19).replace('T', ' ') : l.row ? formatTs(l.row.createdTs) : '-') },
  { title: 'client id', get: (l: Line) => l.o.clientOrderId },
  { title: 'symbol', get: (l: Line) => l.o.symbol },
  { title: 'side', get: (l: Line) => l.o.side },
  { title: 'type', get: (l: Line) => l.o.type },
  { title: 'price', get: (l: Line) => l.o.price?.toFixed() ?? '-', align: 'right' as const },
  { title: 'quantity', get: (l: Line) => l.o.origQty.toFixed(), align: 'right' as const },
  { title: 'exchange status', get: (l: Line) => l.o.status },
  { title: 'exchange executed', get: (l: Line) => l.o.executedQty.toFixed(), align: 'right' as const },
  { title: 'journal status', get: (l: Line) => l.row?.status ?? '-' },
  { title: 'journal executed', get: (l: Line) => l.row?.executedQty.toFixed() ?? '-', align: 'right' as const },
  { title: 'strategy', get: (l: Line) => l.row?.strategy ?? '-' },
  { title: 'compare', get: compare },
];

function pagesOption(raw: string): number {
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1 || n > 100) throw new ParameterError('--pages', raw, 'an integer from 1 to 100');
  return n;
}

function upperOf<T extends string>(name: string, raw: string | undefined, allowed: readonly T[]): T | undefined {
  if (raw === undefined) return undefined;
  const v = raw.toUpperCase() as T;
  if (!allowed.includes(v)) throw new ParameterError(name, raw, `one of ${allowed.join(', ')}`);
  return v;
}

export function registerOrdersCommand(program: Command, deps: OrdersCommandDeps = {}): Command {
  const out = deps.out ?? ((t: string) => void process.stdout.write(t));
  const note = deps.note ?? ((t: string) => void process.stderr.write(t));
  return program
    .command('orders')
    .description("the exchange's order history beside the journal's view of each order (WALLEX_API_KEY)")
    .option('--journal <file>', "the bot's journal file (default: as `mizan journal` finds it)")
    .option('-c, --config <file>', "the bot's config: its journal.file")
    .option('--url <url>', 'exchange or simulator address', urlOption, DEFAULT_EXCHANGE_URL)
    .option('--market <symbol>', 'only this market')
    .option('--side <BUY|SELL>', 'only this side')
    .option('--type <type>', 'only this order type (LIMIT, MARKET, STOP_LIMIT, STOP_MARKET)')
    .option('--from <YYYY-MM-DD>', 'first day (UTC)')
    .option('--to <YYYY-MM-DD>', 'last day (UTC)')
    .option('--pages <n>', 'pages of 100 orders read at most, newest first', pagesOption, 1)
    .action(async (o: Opts) => {
      const env = deps.env ?? process.env;
      const apiKey = env.WALLEX_API_KEY?.trim();
      if (!apiKey) throw new ParameterError('WALLEX_API_KEY', undefined, "the account's API key in the environment: the order history is private");
      const side = upperOf<Side>('--side', o.side, ['BUY', 'SELL']);
      const type = upperOf<OrderType>('--type', o.type, ['LIMIT', 'MARKET', 'STOP_LIMIT', 'STOP_MARKET']);
      const where = await resolveJournalFile({
        ...(o.journal !== undefined ? { file: o.journal } : {}),
        ...(o.config !== undefined ? { config: o.config } : {}),
      });
      const rest = new WallexRestClient({ baseUrl: o.url, apiKey });
      const orders: SpotOrder[] = [];
      try {
        for (let page = 1; page <= o.pages; page++) {
          const res = await rest.getOrderHistory({
            page,
            perPage: 100,
            ...(o.market ? { market: o.market.toUpperCase() } : {}),
            ...(side ? { side } : {}),
            ...(type ? { type } : {}),
            ...(o.from ? { from: o.from } : {}),
            ...(o.to ? { to: o.to } : {}),
          });
          orders.push(...res.items);
          if (res.items.length < 100) break;
        }
      } finally {
        rest.close();
      }
      const j = Journal.open(where.file, { readonly: true, clock: new SystemClock() });
      try {
        if (where.implicit) note(`${where.implicit}\n`);
        const lines = orders.map((x) => ({ o: x, row: j.order(x.clientOrderId) }));
        const counts = { same: 0, differs: 0, 'not in journal': 0 } as Record<string, number>;
        for (const l of lines) counts[compare(l)]!++;
        const text = lines.length
          ? renderTable(lines, columns) +
            `${lines.length} orders on the exchange: ${counts.same} as the journal has them, ${counts.differs} differ, ${counts['not in journal']} not in the journal\n`
          : 'no orders on the exchange\n';
        out(scrub(text, [apiKey]));
      } finally {
        j.close();
      }
    });
}
