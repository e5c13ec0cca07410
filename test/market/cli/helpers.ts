/** Shared pieces of the market command tests: a captured text stream and a program to parse with. */
import { Command } from 'commander';
import { registerMarketCommands, type MarketCommandDeps } from '../../../src/cli/market.js';

export interface Captured {
  text: string;
  isTTY: boolean;
  write(s: string): boolean;
  /** Resolves when the captured text matches. */
  waitFor(re: RegExp, timeoutMs?: number): Promise<string>;
}

export function capture(isTTY = false): Captured {
  const waiters: { re: RegExp; resolve: (s: string) => void }[] = [];
  const c: Captured = {
    text: '',
    isTTY,
    write(s: string) {
      c.text += s;
      for (const w of [...waiters]) {
        if (w.re.test(c.text)) {
          waiters.splice(waiters.indexOf(w), 1);
          w.resolve(c.text);
        }
      }
      return true;
    },
    waitFor(re, timeoutMs = 15_000) {
      if (re.test(c.text)) return Promise.resolve(c.text);
      return new Promise<string>((resolve, reject) => {
        const t = setTimeout(() => reject(new Error(`output never matched ${re}: ${JSON.stringify(c.text.slice(-500))}`)), timeoutMs);
        waiters.push({ re, resolve: (s) => (clearTimeout(t), resolve(s)) });
      });
    },
  };
  return c;
}

export function program(deps: MarketCommandDeps): Command {
  const p = new Command();
  p.exitOverride();
  p.configureOutput({ writeOut: () => undefined, writeErr: () => undefined });
  registerMarketCommands(p, deps);
  return p;
}
