/**
 * Bearer tokens of the API: a read-only one and a control one, compared in constant time, and a
 * limit on failed attempts per client address (after `maxFailures` failures within `windowMs`, the
 * address's wrong or missing tokens get 429 for the rest of the window). Only failures count: a
 * valid token is always served, so nobody can lock the operator out by sending wrong ones.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

export type Access = 'read' | 'control';

export interface Tokens {
  read: string;
  control: string;
}

export interface ResolvedTokens extends Tokens {
  /** Which tokens were generated (to print once at start). */
  generated: Access[];
}

export const TOKEN_ENV = { read: 'MIZAN_SERVER_TOKEN', control: 'MIZAN_SERVER_CONTROL_TOKEN' } as const;
const TOKEN_RE = /^[A-Za-z0-9._~+-]{16,256}$/;

/** A new random token (32 bytes, base64url). */
export function generateToken(): string {
  return randomBytes(32).toString('base64url');
}

/**
 * The tokens: the config's (already taken from the environment), else the default variables, else
 * generated. A variable that is set but unusable is an error naming it (the value is not shown).
 */
export function resolveTokens(
  fromConfig: { token?: string | undefined; controlToken?: string | undefined },
  env: Readonly<Record<string, string | undefined>>,
): ResolvedTokens {
  const generated: Access[] = [];
  const pick = (access: Access, configured: string | undefined): string => {
    if (configured) return configured;
    const name = TOKEN_ENV[access];
    const v = env[name];
    if (v !== undefined && v !== '') {
      if (!TOKEN_RE.test(v)) throw new Error(`${name}: is not a usable token (value hidden, ${v.length} characters): 16 to 256 letters, digits or . _ ~ + -`);
      return v;
    }
    generated.push(access);
    return generateToken();
  };
  const read = pick('read', fromConfig.token);
  const control = pick('control', fromConfig.controlToken);
  if (read === control)
    throw new Error(`${TOKEN_ENV.control}: is the same as ${TOKEN_ENV.read} (value hidden): the read-only and the control token must differ`);
  return { read, control, generated };
}

const digest = (s: string) => createHash('sha256').update(s).digest();

export class TokenCheck {
  private readonly read: Buffer;
  private readonly control: Buffer;

  constructor(tokens: Tokens) {
    this.read = digest(tokens.read);
    this.control = digest(tokens.control);
  }

  /** The access a presented token grants, or undefined. Both are compared (no early exit). */
  access(presented: string): Access | undefined {
    const d = digest(presented);
    const isControl = timingSafeEqual(d, this.control);
    const isRead = timingSafeEqual(d, this.read);
    return isControl ? 'control' : isRead ? 'read' : undefined;
  }
}

export interface FailureLimitOptions {
  maxFailures: number;
  windowMs: number;
  /** Addresses remembered at most (the oldest are forgotten first); default 10,000. */
  maxAddresses?: number;
  now?: () => number;
}

export class FailureLimit {
  private readonly byAddress = new Map<string, { count: number; start: number }>();
  private readonly now: () => number;

  constructor(private readonly opts: FailureLimitOptions) {
    this.now = opts.now ?? Date.now;
  }

  /** Milliseconds the address is still blocked for (0: not blocked). */
  blockedFor(address: string): number {
    const e = this.byAddress.get(address);
    if (!e) return 0;
    const left = e.start + this.opts.windowMs - this.now();
    if (left <= 0) {
      this.byAddress.delete(address);
      return 0;
    }
    return e.count >= this.opts.maxFailures ? left : 0;
  }

  /** Count a failure; true when this one reached the limit (the address is blocked from now). */
  fail(address: string): boolean {
    const t = this.now();
    let e = this.byAddress.get(address);
    if (!e || t - e.start >= this.opts.windowMs) {
      // A new window goes to the end of the map's order (the oldest are the first to be forgotten).
      this.byAddress.delete(address);
      e = { count: 0, start: t };
      this.byAddress.set(address, e);
    }
    e.count++;
    // The map stays small whatever addresses try: past the cap, the oldest windows are forgotten
    // (the map is in the order windows started, so the ended ones go first).
    const cap = this.opts.maxAddresses ?? 10_000;
    for (const k of this.byAddress.keys()) {
      if (this.byAddress.size <= cap) break;
      this.byAddress.delete(k);
    }
    return e.count === this.opts.maxFailures;
  }
}
