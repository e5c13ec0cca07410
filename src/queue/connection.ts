/**
 * The `--queue` URL and the Redis connections made from it (ioredis, as BullMQ uses them).
 * `redis://[user:password@]host:port[/db]`, or `rediss://…` for TLS. The password never appears in a
 * message: `redactUrl` replaces it.
 */
import { isIP } from 'node:net';
import { Redis, type RedisOptions } from 'ioredis';

export interface QueueUrl {
  /** The URL as given. */
  url: string;
  /** The URL with its password replaced by `***` (for messages and logs). */
  shown: string;
  options: RedisOptions;
}

/** `redis://user:secret@h:1/2` -> `redis://user:***@h:1/2`. */
export function redactUrl(url: string): string {
  return url.replace(
    /^([a-z]+:\/\/)([^@/]*)@/i,
    (_m, proto: string, auth: string) => `${proto}${auth.includes(':') ? `${auth.slice(0, auth.indexOf(':'))}:***` : '***'}@`,
  );
}

/** Parses and checks a `--queue` value; the error names the option and the value (password hidden). */
export function parseQueueUrl(text: string, flag = '--queue'): QueueUrl {
  const shown = redactUrl(text);
  const bad = (why: string) => new Error(`${flag} ${JSON.stringify(shown)}: ${why} (expected redis://[user:password@]host:port[/db] or rediss://… for TLS)`);
  let u: URL;
  try {
    u = new URL(text);
  } catch {
    throw bad('not a URL');
  }
  if (u.protocol !== 'redis:' && u.protocol !== 'rediss:') throw bad(`the scheme ${u.protocol.replace(/:$/, '')} is not redis or rediss`);
  if (!u.hostname) throw bad('no host');
  if (!u.port) throw bad('no port');
  const port = Number(u.port);
  const path = u.pathname.replace(/^\//, '');
  if (path !== '' && !/^\d+$/.test(path)) throw bad(`the database ${JSON.stringify(path)} is not a number`);
  if (u.search || u.hash) throw bad('a query or fragment is not used');
  const host = u.hostname.replace(/^\[(.*)\]$/, '$1');
  const options: RedisOptions = {
    host,
    port,
    db: path === '' ? 0 : Number(path),
    ...(u.username ? { username: decodeURIComponent(u.username) } : {}),
    ...(u.password ? { password: decodeURIComponent(u.password) } : {}),
    // TLS: the server's certificate is checked against the host (name or IP address) and the system's CAs (NODE_EXTRA_CA_CERTS adds more).
    ...(u.protocol === 'rediss:' ? { tls: isIP(host) ? {} : { servername: host } } : {}),
    // BullMQ's blocking commands need these; a restarted server is reconnected to, commands wait.
    maxRetriesPerRequest: null,
    enableReadyCheck: true,
    retryStrategy: (times: number) => Math.min(100 * times, 2000),
  };
  return { url: text, shown, options };
}

/**
 * A connection that reports an outage once (not at every retry) and the reconnection, through `say`.
 * ioredis retries for ever (retryStrategy); commands sent meanwhile wait for the server.
 */
export function connect(q: QueueUrl, name: string, say: (line: string) => void): Redis {
  const r = new Redis({ ...q.options, connectionName: `mizan-${name}` });
  let down = false;
  let wasReady = false;
  r.on('error', (err: NodeJS.ErrnoException) => {
    // Before the first connection, whenReady reports an error retrying cannot cure (and stops).
    if (down || (!wasReady && isFatal(err))) return;
    down = true;
    say(`redis ${q.shown} unreachable (${err.code ?? err.message}); retrying`);
  });
  r.on('close', () => {
    if (down || !wasReady || r.status === 'end') return;
    down = true;
    say(`redis ${q.shown}: connection lost; reconnecting`);
  });
  r.on('ready', () => {
    wasReady = true;
    if (!down) return;
    down = false;
    say(`redis ${q.shown} reconnected`);
  });
  return r;
}

/** Errors that retrying does not cure: a wrong password, a user without the rights mizan needs. */
const FATAL = /WRONGPASS|NOAUTH|NOPERM|invalid (username-)?password|ERR AUTH/i;
/** TLS errors: an untrusted or mismatched certificate is not cured by retrying either. */
const TLS_FATAL = /CERT|SELF_SIGNED|UNABLE_TO_VERIFY|ERR_TLS|ERR_SSL/;
const isFatal = (err: NodeJS.ErrnoException) => FATAL.test(err.message) || TLS_FATAL.test(err.code ?? '');

/**
 * Resolves once `r` is connected and ready; rejects (and disconnects it) on an error retrying cannot
 * cure (authentication, permissions), naming the server without its password. A server that is not
 * up yet is waited for (ioredis retries).
 */
export function whenReady(r: Redis, q: QueueUrl): Promise<void> {
  if (r.status === 'ready') return Promise.resolve();
  return new Promise<void>((resolve, reject) => {
    const onReady = () => {
      r.off('error', onError);
      resolve();
    };
    const onError = (err: NodeJS.ErrnoException) => {
      if (!isFatal(err)) return;
      r.off('ready', onReady);
      r.off('error', onError);
      r.disconnect();
      reject(
        new Error(
          `redis ${q.shown}: ${TLS_FATAL.test(err.code ?? '') ? `TLS: ${err.message} (${err.code}; NODE_EXTRA_CA_CERTS=ca.pem adds a CA)` : err.message}`,
        ),
      );
    };
    r.on('ready', onReady);
    r.on('error', onError);
  });
}
