/**
 * Denied intents by rule and reason, for the backtest summary and report, `result.json`, the API and
 * a bot's summary (a count alone says nothing about what to fix). Reasons that differ only in their
 * numbers ("needs 105.2 USDT … only 3.1 is free") are one reason: a number that differs between them
 * is shown as the range it took (`0.01–0.5`), never as a bare placeholder, and the first text is kept
 * as an example.
 */

interface DenialReason {
  /** The reason's text; a number that differs between its occurrences is its range, `min–max`. */
  reason: string;
  count: number;
  /** The first exact text. */
  example: string;
}

interface DenialRule {
  rule: string;
  count: number;
  /** The most frequent reasons first (at most `top` of them); `otherReasons` counts the rest. */
  reasons: DenialReason[];
  otherReasons: number;
}

export interface DenialBreakdown {
  total: number;
  /** Rules by count, the largest first. */
  byRule: DenialRule[];
}

/** Numbers that stand alone (not the digits of a name such as BTCUSDT or s1). */
const NUMBER = /(?<![A-Za-z0-9_.])-?\d+(?:\.\d+)?(?:e[+-]?\d+)?(?![A-Za-z0-9_])/g;

interface Group {
  count: number;
  example: string;
  /** The numbers of the first text, and the smallest and largest each took since (as written). */
  numbers: string[];
  min: string[];
  max: string[];
}

export class DenialTally {
  total = 0;
  private readonly rules = new Map<string, { count: number; groups: Map<string, Group> }>();
  /** Distinct reason shapes kept per rule (the rest are counted under the rule only). */
  private readonly maxGroups = 200;

  add(rule: string, reason: string): void {
    this.total++;
    let r = this.rules.get(rule);
    if (!r) this.rules.set(rule, (r = { count: 0, groups: new Map() }));
    r.count++;
    const numbers = reason.match(NUMBER) ?? [];
    const shape = reason.replace(NUMBER, '#');
    const g = r.groups.get(shape);
    if (!g) {
      if (r.groups.size < this.maxGroups) r.groups.set(shape, { count: 1, example: reason, numbers, min: [...numbers], max: [...numbers] });
      return;
    }
    g.count++;
    for (let i = 0; i < g.numbers.length; i++) {
      const n = numbers[i];
      if (n === undefined || n === g.numbers[i]) continue;
      if (Number(n) < Number(g.min[i])) g.min[i] = n;
      if (Number(n) > Number(g.max[i])) g.max[i] = n;
    }
  }

  /** The breakdown, with at most `top` reasons per rule. Ties keep the order first seen. */
  breakdown(top = 5): DenialBreakdown {
    const byRule: DenialRule[] = [];
    for (const [rule, r] of this.rules) {
      const reasons = [...r.groups.values()]
        .map((g) => {
          let i = 0;
          const reason = g.example.replace(NUMBER, () => {
            const k = i++;
            return g.min[k] === g.max[k] ? g.min[k]! : `${g.min[k]}–${g.max[k]}`;
          });
          return { reason, count: g.count, example: g.example };
        })
        .sort((a, b) => b.count - a.count);
      const shown = reasons.slice(0, top);
      byRule.push({ rule, count: r.count, reasons: shown, otherReasons: r.count - shown.reduce((a, x) => a + x.count, 0) });
    }
    byRule.sort((a, b) => b.count - a.count);
    return { total: this.total, byRule };
  }
}

/** The breakdown as indented lines for a terminal (rule, count, then its reasons with counts). */
export function formatDenials(b: DenialBreakdown, indent = '  '): string[] {
  const lines: string[] = [];
  for (const r of b.byRule) {
    lines.push(`${indent}${r.rule}: ${r.count}`);
    for (const x of r.reasons) lines.push(`${indent}  ${String(x.count).padStart(6)} × ${x.reason}`);
    if (r.otherReasons > 0) lines.push(`${indent}  ${String(r.otherReasons).padStart(6)} × (other reasons)`);
  }
  return lines;
}
