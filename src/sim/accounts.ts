/**
 * Accounts and API keys of the simulated exchange. A key carries permissions (read, trade,
 * withdraw), permitted IPs (empty: every IP; mandatory with withdraw) and an expiry (at most 90
 * days); an account has at most 3 active keys. `authenticate` answers like the exchange: 401 for a
 * missing, unknown or expired key, 403 for a missing permission or a caller IP outside the list.
 * Errors never contain the key.
 */
import type { Decimal } from '../core/decimal.js';
import type { Clock } from '../core/clock.js';
import { SimError } from './errors.js';
import type { Prng } from './prng.js';
import type { Permission } from './wire/route.js';

export type { Permission };

export interface ApiKeyRecord {
  key: string;
  accountId: string;
  name: string;
  permissions: Permission[];
  /** Empty: every IP is allowed. */
  ips: string[];
  createdAt: number;
  expiresAt: number;
  revoked: boolean;
  /**
   * The trading-credit account (its `sub-account-client-id`) this key belongs to: such a key acts
   * only for that sub-account, and the owner's other keys do not trade for it.
   */
  subAccount?: string;
}

export interface NewApiKey {
  name: string;
  /** `read` is always included. */
  permissions?: Permission[];
  ips?: string[];
  /** 90 (default), 60, 30 or 15. */
  validityDays?: 90 | 60 | 30 | 15;
  /** Use this key value instead of a generated one (tests, fixed CLI keys). */
  key?: string;
  /** Issue the key for this trading-credit account of the owner (its client id). */
  subAccount?: string;
}

export interface FeeOverride {
  makerFee: Decimal;
  takerFee: Decimal;
}

export interface SimAccount {
  id: string;
  createdAt: number;
  /** Per-market fee overrides; markets without one use the market's default fees. */
  fees: Map<string, FeeOverride>;
}

const MAX_ACTIVE_KEYS = 3;
const DAY_MS = 86_400_000;
const VALIDITIES = new Set([90, 60, 30, 15]);

export class AccountStore {
  private readonly accounts = new Map<string, SimAccount>();
  private readonly keys = new Map<string, ApiKeyRecord>();
  private seq = 0;

  constructor(
    private readonly clock: Clock,
    private readonly prng: Prng,
  ) {}

  create(id?: string): SimAccount {
    const accountId = id ?? `acc_${++this.seq}`;
    if (this.accounts.has(accountId)) throw new SimError(409, `account ${accountId} already exists`);
    const account: SimAccount = { id: accountId, createdAt: this.clock.now(), fees: new Map() };
    this.accounts.set(accountId, account);
    return account;
  }

  get(accountId: string): SimAccount | undefined {
    return this.accounts.get(accountId);
  }

  require(accountId: string): SimAccount {
    const a = this.accounts.get(accountId);
    if (!a) throw new SimError(404, `account ${accountId} not found`);
    return a;
  }

  ids(): string[] {
    return [...this.accounts.keys()];
  }

  setFees(accountId: string, symbol: string, fees: FeeOverride): void {
    this.require(accountId).fees.set(symbol, fees);
  }

  /** Keys of the account that are neither revoked nor expired. */
  activeKeys(accountId: string): ApiKeyRecord[] {
    const now = this.clock.now();
    return [...this.keys.values()].filter((k) => k.accountId === accountId && !k.revoked && k.expiresAt > now);
  }

  createKey(accountId: string, req: NewApiKey): ApiKeyRecord {
    this.require(accountId);
    const fields: Record<string, string[]> = {};
    const validity = req.validityDays ?? 90;
    if (!VALIDITIES.has(validity)) fields.validity = [`validity must be 90, 60, 30 or 15 days, got ${String(validity)}`];
    const name = req.name.trim();
    if (!name) fields.name = ['name is required'];
    else if ([...this.keys.values()].some((k) => k.accountId === accountId && k.name === name && !k.revoked)) {
      fields.name = [`a key named ${JSON.stringify(name)} already exists`];
    }
    const permissions = [...new Set<Permission>(['read', ...(req.permissions ?? [])])];
    const ips = req.ips ?? [];
    if (permissions.includes('withdraw') && ips.length === 0) fields.ips = ['permitted IPs are required with the withdraw permission'];
    // The limit counts the keys of one account: the main account's, or one trading-credit account's.
    if (this.activeKeys(accountId).filter((k) => k.subAccount === req.subAccount).length >= MAX_ACTIVE_KEYS)
      fields.name = [...(fields.name ?? []), `at most ${MAX_ACTIVE_KEYS} active API keys are allowed`];
    if (Object.keys(fields).length > 0) throw new SimError(422, `API key not created: ${Object.values(fields).flat().join('; ')}`, fields);
    const key = req.key ?? `sim_${this.prng.hex(24)}`;
    if (this.keys.has(key)) throw new SimError(409, 'an API key with this value already exists');
    const now = this.clock.now();
    const rec: ApiKeyRecord = { key, accountId, name, permissions, ips: [...ips], createdAt: now, expiresAt: now + validity * DAY_MS, revoked: false };
    if (req.subAccount !== undefined) rec.subAccount = req.subAccount;
    this.keys.set(key, rec);
    return rec;
  }

  revokeKey(key: string): void {
    const rec = this.keys.get(key);
    if (rec) rec.revoked = true;
  }

  /** The trading-credit account a key was issued for (undefined: a key of the main account, or unknown). */
  subAccountOfKey(apiKey: string | undefined): string | undefined {
    return apiKey === undefined ? undefined : this.keys.get(apiKey)?.subAccount;
  }

  /** The account id behind the key, or a 401/403 SimError. */
  authenticate(apiKey: string | undefined, ip: string, permission: Permission): string {
    if (!apiKey) throw new SimError(401, 'API key is missing: send it in the x-api-key header');
    const rec = this.keys.get(apiKey);
    if (!rec || rec.revoked) throw new SimError(401, 'API key is invalid');
    if (rec.expiresAt <= this.clock.now()) throw new SimError(401, `API key "${rec.name}" expired at ${new Date(rec.expiresAt).toISOString()}`);
    if (rec.ips.length > 0 && !rec.ips.includes(ip)) throw new SimError(403, `IP ${ip} is not permitted for API key "${rec.name}"`);
    if (!rec.permissions.includes(permission)) throw new SimError(403, `API key "${rec.name}" lacks the ${permission} permission`);
    return rec.accountId;
  }
}
