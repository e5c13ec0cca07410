/**
 * Background delivery to one target: a bounded queue (when full, the oldest message is dropped,
 * counted and logged), one request at a time in order, a timeout per request, retries with
 * exponential backoff on a network error, a timeout, 429 (its Retry-After honoured) and 5xx.
 *
 * `enqueue` is all the trading path ever calls: it pushes and returns; the requests run later on the
 * event loop. Nothing here logs the target's URL, token or headers (built into messages here from
 * status codes and error codes only, then scrubbed of the secrets as a last guard). A receiver's
 * answer is quoted in the message (its first 200 characters), scrubbed first of the process's
 * secrets and of every part of the target's own URL (a receiver that echoes the request path
 * quotes the webhook's secret path segment alone).
 */
import type { Logger } from '../core/logger.js';
import { urlSecretParts } from '../config/notify-secrets.js';
import { scrub } from '../runtime/logger.js';
import type { HttpRequest, Notice } from './format.js';

export interface DeliveryOptions {
  timeoutMs: number;
  retries: number;
  backoffMs: number;
  maxBackoffMs: number;
  queueSize: number;
}

export interface DeliveryStats {
  queued: number;
  sent: number;
  /** Messages given up on (attempts exhausted, or a refusal such as 400/401/403/404). */
  failed: number;
  /** Messages dropped from a full queue. */
  dropped: number;
  /** Retries made (attempts after the first). */
  retries: number;
}

/** Least wall time between two warnings of one kind per target. */
const WARN_EVERY_MS = 30_000;

class Outcome {
  constructor(
    readonly ok: boolean,
    readonly retry: boolean,
    readonly why: string,
    readonly retryAfterMs?: number,
  ) {}
}

/** Retry-After of a 429 (header seconds, or Telegram's parameters.retry_after, or Discord's retry_after). */
function retryAfterOf(headers: Headers, body: string): number | undefined {
  const h = headers.get('retry-after');
  if (h !== null && Number.isFinite(Number(h))) return Number(h) * 1000;
  try {
    const b = JSON.parse(body) as { retry_after?: unknown; parameters?: { retry_after?: unknown } };
    const s = typeof b.parameters?.retry_after === 'number' ? b.parameters.retry_after : typeof b.retry_after === 'number' ? b.retry_after : undefined;
    return s === undefined ? undefined : s * 1000;
  } catch {
    return undefined;
  }
}

export class Delivery {
  private readonly queue: Notice[] = [];
  private running = false;
  private closing = false;
  private readonly abort = new AbortController();
  private readonly lastWarn = new Map<string, number>();
  private readonly idleWaiters: (() => void)[] = [];
  /** The secrets of a receiver's answer to one URL (the process's, then the URL's own parts), longest first. */
  private answerSecrets: { url: string; secrets: readonly string[] } | undefined;
  readonly stats: DeliveryStats = { queued: 0, sent: 0, failed: 0, dropped: 0, retries: 0 };

  constructor(
    readonly name: string,
    private readonly build: (n: Notice) => HttpRequest,
    private readonly opts: DeliveryOptions,
    private readonly logger: Logger,
    private readonly secrets: readonly string[],
    private readonly fetchFn: typeof fetch = fetch,
  ) {}

  /** Queue a notice; returns at once. */
  enqueue(n: Notice): void {
    if (this.closing) return;
    if (this.queue.length >= this.opts.queueSize) {
      this.queue.shift();
      this.stats.dropped++;
      this.warn(
        'dropped',
        { target: this.name, queueSize: this.opts.queueSize, dropped: this.stats.dropped },
        `notify: the queue of ${this.name} is full (${this.opts.queueSize}): the oldest message was dropped (${this.stats.dropped} dropped in all)`,
      );
    }
    this.queue.push(n);
    this.stats.queued = this.queue.length;
    if (!this.running) {
      this.running = true;
      setImmediate(() => void this.pump());
    }
  }

  private warn(kind: string, fields: Record<string, unknown>, msg: string): void {
    const now = Date.now();
    const last = this.lastWarn.get(kind);
    if (last !== undefined && now - last < WARN_EVERY_MS) return;
    this.lastWarn.set(kind, now);
    this.logger.warn(fields, scrub(msg, this.secrets));
  }

  private async pump(): Promise<void> {
    try {
      for (;;) {
        const n = this.queue.shift();
        this.stats.queued = this.queue.length;
        if (!n) break;
        await this.deliver(n);
      }
    } finally {
      this.running = false;
      for (const w of this.idleWaiters.splice(0)) w();
    }
  }

  private async deliver(n: Notice): Promise<void> {
    let req: HttpRequest;
    try {
      req = this.build(n);
    } catch (err) {
      this.stats.failed++;
      this.warn('build', { target: this.name }, `notify: ${this.name}: message not built (${(err as Error).message})`);
      return;
    }
    for (let attempt = 0; ; attempt++) {
      if (this.abort.signal.aborted) return;
      const out = await this.attempt(req);
      if (out.ok) {
        this.stats.sent++;
        this.logger.debug({ target: this.name, event: n.event, id: n.id, attempts: attempt + 1 }, 'notify: sent');
        return;
      }
      if (!out.retry || attempt >= this.opts.retries) {
        this.stats.failed++;
        this.warn(
          'failed',
          { target: this.name, event: n.event, attempts: attempt + 1, reason: out.why, failed: this.stats.failed },
          `notify: ${this.name}: a ${n.event} message was not delivered after ${attempt + 1} attempt(s): ${out.why}`,
        );
        return;
      }
      const backoff = Math.min(this.opts.maxBackoffMs, this.opts.backoffMs * 2 ** attempt);
      const delay = Math.min(this.opts.maxBackoffMs, Math.max(backoff, out.retryAfterMs ?? 0));
      this.logger.debug({ target: this.name, event: n.event, attempt: attempt + 1, reason: out.why, retryInMs: delay }, 'notify: attempt failed; retrying');
      this.stats.retries++;
      await this.sleep(delay);
    }
  }

  private async attempt(req: HttpRequest): Promise<Outcome> {
    // One controller per request, aborted by its timeout or by close() (no AbortSignal.any: Node 20
    // keeps composed signals alive as long as the long-lived one).
    const ctl = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      ctl.abort();
    }, this.opts.timeoutMs);
    const onClose = () => ctl.abort();
    this.abort.signal.addEventListener('abort', onClose);
    try {
      const res = await this.fetchFn(req.url, { method: 'POST', headers: req.headers, body: req.body, signal: ctl.signal, redirect: 'error' });
      const text = await res.text().catch(() => '');
      if (res.ok) return new Outcome(true, false, `HTTP ${res.status}`);
      // Scrubbed whole, then cut: a secret across the cut would otherwise leave its first characters.
      const why = `HTTP ${res.status}${text ? ` ${JSON.stringify(scrub(text, this.secretsOfAnswer(req.url)).slice(0, 200))}` : ''}`;
      if (res.status === 429) return new Outcome(false, true, why, retryAfterOf(res.headers, text));
      return new Outcome(false, res.status >= 500 || res.status === 408, why);
    } catch (err) {
      if (timedOut) return new Outcome(false, true, `no answer within ${this.opts.timeoutMs} ms`);
      if (this.abort.signal.aborted) return new Outcome(false, false, 'stopped');
      // undici's "fetch failed" carries the system's reason (ECONNREFUSED, ENOTFOUND ...) in `cause`.
      const cause = (err as { cause?: { code?: unknown; message?: unknown } }).cause;
      const code = typeof cause?.code === 'string' ? cause.code : typeof cause?.message === 'string' ? cause.message : (err as Error).name;
      return new Outcome(false, true, `request failed (${scrub(String(code), this.secrets)})`);
    } finally {
      clearTimeout(timer);
      this.abort.signal.removeEventListener('abort', onClose);
    }
  }

  private secretsOfAnswer(url: string): readonly string[] {
    if (this.answerSecrets?.url !== url) {
      const own = [url, ...urlSecretParts(url, { words: true })];
      this.answerSecrets = { url, secrets: [...new Set([...this.secrets, ...own])].sort((a, b) => b.length - a.length) };
    }
    return this.answerSecrets.secrets;
  }

  private sleep(ms: number): Promise<void> {
    const signal = this.abort.signal;
    return new Promise((resolve) => {
      if (signal.aborted) return resolve();
      const done = () => {
        clearTimeout(t);
        signal.removeEventListener('abort', done);
        resolve();
      };
      const t = setTimeout(done, ms);
      signal.addEventListener('abort', done);
    });
  }

  /** Resolves when the queue is empty and nothing is in flight. */
  idle(): Promise<void> {
    if (!this.running && this.queue.length === 0) return Promise.resolve();
    return new Promise((r) => this.idleWaiters.push(r));
  }

  /** Stop taking messages; wait up to `graceMs` for the queue to empty, then abort what is left. */
  async close(graceMs: number): Promise<void> {
    this.closing = true;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.idle(), new Promise<void>((r) => (timer = setTimeout(r, graceMs)))]);
    clearTimeout(timer);
    const left = this.queue.length + (this.running ? 1 : 0);
    this.abort.abort();
    this.queue.length = 0;
    if (left > 0) this.logger.warn({ target: this.name, left }, `notify: ${this.name}: ${left} message(s) not delivered before the stop`);
  }
}
