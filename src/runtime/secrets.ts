/**
 * The one owner of "which strings are secret": the exchange API keys (the main account's and each
 * trading-credit account's, config `accounts:`), the private stream key, the
 * API server's tokens and the notification targets' tokens, URLs and header values, as this process
 * knows them from its config and its environment. The logger, the journal, the notifier, the API
 * server, result files and what `mizan status` / `mizan journal` print all remove exactly these
 * (with core/scrub.ts).
 */
import { readFileSync } from 'node:fs';
import { SECRET_VARIABLES, substituteEnv } from '../config/env.js';
import { notificationSecrets } from '../config/notify-secrets.js';

/** The variables a secret comes from when no config names it: the documented key names and the API tokens (config/env.ts). */
const SECRET_ENV = Object.keys(SECRET_VARIABLES);

type Env = Readonly<Record<string, string | undefined>>;

export interface SecretFields {
  exchange: { apiKey?: string | undefined; stream?: { privateKey?: string | undefined } | undefined };
  /** Trading-credit accounts' own API keys (config `accounts:`, read from the environment). */
  accounts?: Readonly<Record<string, { apiKey?: string | undefined }>> | undefined;
  notifications?: Parameters<typeof notificationSecrets>[0];
  server?: { token?: string | undefined; controlToken?: string | undefined } | undefined;
}

/** Only values worth scrubbing: strings of 6 characters or more (core/scrub.ts ignores shorter ones), once each. */
function usable(values: readonly unknown[]): string[] {
  return [...new Set(values.filter((v): v is string => typeof v === 'string' && v.length >= 6))];
}

/**
 * The secrets of a parsed config, plus `extra` (tokens this process generated, the embedded
 * simulator's key) and the secret variables of the environment.
 */
export function configSecrets(config: SecretFields, extra: readonly (string | undefined)[] = [], env: Env = process.env): string[] {
  return usable([
    config.exchange.apiKey,
    config.exchange.stream?.privateKey,
    ...Object.values(config.accounts ?? {}).map((a) => a.apiKey),
    config.server?.token,
    config.server?.controlToken,
    ...notificationSecrets(config.notifications),
    ...extra,
    ...envSecrets(env),
  ]);
}

/** The values of the secret variables (SECRET_ENV) that are set. */
export function envSecrets(env: Env = process.env): string[] {
  return usable(SECRET_ENV.map((n) => env[n]));
}

/**
 * The secrets a config file names, read without checking the rest of it (a command that only reads
 * a journal must not fail on a config it does not otherwise need), plus the environment's. A file
 * that cannot be read or parsed gives the environment's alone.
 */
export async function secretsOfConfigFile(file: string | undefined, env: Env = process.env): Promise<string[]> {
  if (file === undefined) return envSecrets(env);
  // The YAML parser is loaded by the commands that read a config, not by everything that logs.
  const { parseDocument } = await import('yaml');
  let raw: unknown;
  try {
    raw = parseDocument(readFileSync(file, 'utf8')).toJS();
  } catch {
    return envSecrets(env);
  }
  const v = (substituteEnv(raw, env).value ?? {}) as Record<string, unknown>;
  const obj = (x: unknown): Record<string, unknown> => (x !== null && typeof x === 'object' && !Array.isArray(x) ? (x as Record<string, unknown>) : {});
  const exchange = obj(v.exchange);
  const server = obj(v.server);
  const targets = Array.isArray(obj(v.notifications).targets) ? (obj(v.notifications).targets as unknown[]).map(obj) : [];
  const str = (x: unknown) => (typeof x === 'string' ? x : undefined);
  return usable([
    str(exchange.apiKey),
    ...Object.values(obj(v.accounts))
      .map((a) => str(obj(a).apiKeyEnv))
      .map((name) => (name === undefined ? undefined : env[name])),
    str(obj(exchange.stream).privateKey),
    str(server.token),
    str(server.controlToken),
    ...targets.flatMap((t) => [str(t.token), str(t.url), ...Object.values(obj(t.headers)).map(str)]),
    ...envSecrets(env),
  ]);
}
