/**
 * The shape of an intent, checked where strategies hand intents over (the first rule of every risk
 * check, in every mode). A strategy is user code, possibly plain JavaScript: an intent of an unknown
 * kind, a side written `buy`, a number where a Decimal belongs or a missing field is denied here,
 * with a reason naming the field and the value, before anything else reads it. Without this an
 * unknown kind passed every rule and was dropped by the executor, and a lowercase side reached the
 * journal's CHECK constraint.
 */
import { Decimal } from '../core/decimal.js';
import type { IntentKind } from '../core/intents.js';
import { ORDER_TYPES } from '../core/types/order.js';
import type { CheckState, RiskRule } from './rule.js';

const INTENT_KINDS: readonly IntentKind[] = ['order', 'cancel', 'cancelAll', 'instant', 'marginOpen', 'marginAddCollateral', 'marginClose', 'marginBrackets'];
const SIDES = ['BUY', 'SELL'] as const;
const POSITION_SIDES = ['long', 'short'] as const;
const SIZE_KINDS = ['base', 'quote', 'fraction'] as const;
const KINDS: ReadonlySet<string> = new Set(INTENT_KINDS);

type Fields = Record<string, unknown>;

/** How a value is shown in a reason: short, and quoted when it is text. */
function show(v: unknown): string {
  if (typeof v === 'string') return JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}…` : v);
  if (v instanceof Decimal) return v.toString();
  if (v === null || v === undefined || typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (Array.isArray(v)) return 'an array';
  return typeof v === 'object' ? 'an object' : typeof v;
}

const isObject = (v: unknown): v is Fields => typeof v === 'object' && v !== null && !Array.isArray(v);

function text(o: Fields, field: string, optional = false): string | undefined {
  const v = o[field];
  if (v === undefined && optional) return undefined;
  if (typeof v !== 'string' || v.length === 0) return `${field} must be a non-empty string, got ${show(v)}`;
  return undefined;
}

function oneOf(o: Fields, field: string, allowed: readonly string[]): string | undefined {
  const v = o[field];
  if (typeof v !== 'string' || !allowed.includes(v)) return `${field} must be one of ${allowed.join(', ')}, got ${show(v)}`;
  return undefined;
}

/**
 * A finite Decimal (prices, amounts, quantities). Ranges (above zero, within the market's limits)
 * are the later rules' business: they name the limit.
 */
function positive(o: Fields, field: string, optional = false): string | undefined {
  const v = o[field];
  if (v === undefined && optional) return undefined;
  if (!(v instanceof Decimal)) return `${field} must be a Decimal, got ${show(v)}`;
  if (!v.isFinite()) return `${field} must be a finite number, got ${show(v)}`;
  return undefined;
}

function positionId(o: Fields): string | undefined {
  const v = o.positionId;
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0) return `positionId must be a whole number, got ${show(v)}`;
  return undefined;
}

function size(o: Fields): string | undefined {
  const s = o.size;
  if (!isObject(s)) return `size must be an object (qty(), quote(), fraction()), got ${show(s)}`;
  const bad = oneOf(s, 'kind', SIZE_KINDS);
  if (bad) return `size.${bad}`;
  if (s.kind === 'base') return prefix('size.', positive(s, 'quantity'));
  if (s.kind === 'quote') return prefix('size.', positive(s, 'amount'));
  const f = s.fraction;
  if (typeof f !== 'number' || !Number.isFinite(f)) return `size.fraction must be a number, got ${show(f)}`;
  return undefined;
}

const prefix = (p: string, reason: string | undefined) => (reason === undefined ? undefined : `${p}${reason}`);

/** Why an intent is malformed, or undefined when its shape is right. */
export function intentShapeProblem(intent: unknown): string | undefined {
  if (!isObject(intent)) return `an intent must be an object, got ${show(intent)}`;
  const kind = intent.kind;
  if (typeof kind !== 'string' || !KINDS.has(kind)) return `unknown intent kind ${show(kind)} (known: ${INTENT_KINDS.join(', ')})`;
  // `??` chains: each check runs only while the ones before it passed (no closures on the hot path).
  const common =
    text(intent, 'strategy') ?? (intent.tag !== undefined && typeof intent.tag !== 'string' ? `tag must be a string, got ${show(intent.tag)}` : undefined);
  if (common) return common;
  switch (kind as IntentKind) {
    case 'order':
      return (
        text(intent, 'symbol') ??
        oneOf(intent, 'side', SIDES) ??
        oneOf(intent, 'type', ORDER_TYPES) ??
        size(intent) ??
        positive(intent, 'price', true) ??
        positive(intent, 'stopPrice', true) ??
        brackets(intent.brackets)
      );
    case 'cancel':
      return text(intent, 'clientOrderId');
    case 'cancelAll':
      return text(intent, 'symbol');
    case 'instant':
      return text(intent, 'symbol') ?? oneOf(intent, 'side', SIDES) ?? size(intent);
    case 'marginOpen':
      return (
        text(intent, 'market') ??
        oneOf(intent, 'side', POSITION_SIDES) ??
        positive(intent, 'collateral') ??
        positive(intent, 'riskCoef') ??
        positive(intent, 'openPrice', true) ??
        positive(intent, 'stopLoss', true) ??
        positive(intent, 'takeProfit', true)
      );
    case 'marginAddCollateral':
      return positionId(intent) ?? positive(intent, 'amount');
    case 'marginClose':
      return positionId(intent) ?? positive(intent, 'price', true);
    case 'marginBrackets':
      return positionId(intent) ?? positive(intent, 'stopLoss', true) ?? positive(intent, 'takeProfit', true);
  }
}

function brackets(b: unknown): string | undefined {
  if (b === undefined) return undefined;
  if (!isObject(b)) return `brackets must be an object { stopLoss?, takeProfit? }, got ${show(b)}`;
  return prefix('brackets.', positive(b, 'stopLoss', true) ?? positive(b, 'takeProfit', true));
}

/** The first rule of a check: a malformed intent is denied before any other rule reads it. */
export class IntentShapeRule implements RiskRule {
  readonly name = 'intentShape';
  check(s: CheckState): string | undefined {
    return intentShapeProblem(s.original);
  }
}
