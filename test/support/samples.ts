/**
 * Loads the real exchange payloads in test/fixtures/exchange-samples. Several are documentation
 * excerpts rather than strict JSON: `// comments`, `...` elisions (as array items, object members or
 * `{ ... }`), trailing commas, prose before the payload, a payload inside `//` comment lines, and a
 * map written with array brackets (`[ "BTCTMN": {...} ]`). `normalizeSample` turns such text into
 * strict JSON **keeping every number literal as written** (so `1e-06` and `250000000.00` reach the
 * client exactly as the exchange printed them); `loadSample` parses it.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
/** The exchange samples copied into test/fixtures/exchange-samples. */
const SAMPLES_DIR = path.resolve(here, '../fixtures/exchange-samples');

function samplePath(name: string): string {
  return path.join(SAMPLES_DIR, name);
}

export function readSampleText(name: string): string {
  return readFileSync(samplePath(name), 'utf8');
}

/** Strict JSON text of a sample file. */
export function sampleJson(name: string): string {
  return normalizeSample(readSampleText(name));
}

/** The parsed sample payload. */
export function loadSample(name: string): unknown {
  return JSON.parse(sampleJson(name));
}

const ELISION = Symbol('elision');
type Out = string | typeof ELISION;

/** Turn a lenient, documentation-style JSON text into strict JSON (see the module comment). */
export function normalizeSample(input: string): string {
  let text = input;
  const lines = text.split('\n');
  const firstBrace = lines.find((l) => /[{[]/.test(l) && !/^\s*(https?:|مثال)/.test(l));
  if (firstBrace !== undefined && /^\s*\/\//.test(firstBrace)) {
    text = lines.map((l) => l.replace(/^\s*\/\/\s?/, '')).join('\n');
  }
  const start = text.search(/[{[]/);
  if (start < 0) throw new Error('sample has no JSON object or array');
  const p = new LenientParser(text, start);
  const out = p.value();
  if (out === ELISION) throw new Error('sample is only an elision');
  return out;
}

class LenientParser {
  constructor(
    private readonly s: string,
    private i: number,
  ) {}

  private fail(what: string): never {
    throw new Error(`sample: ${what} at offset ${this.i}: ${JSON.stringify(this.s.slice(this.i, this.i + 30))}`);
  }

  private ws(): void {
    for (;;) {
      const c = this.s[this.i];
      if (c === undefined) return;
      if (c === ' ' || c === '\n' || c === '\r' || c === '\t' || c === '\u00a0') this.i++;
      else if (c === '/' && this.s[this.i + 1] === '/') {
        while (this.i < this.s.length && this.s[this.i] !== '\n') this.i++;
      } else return;
    }
  }

  value(): Out {
    this.ws();
    const c = this.s[this.i];
    if (c === '{') return this.object();
    if (c === '[') return this.array();
    if (c === '"') return this.string();
    if (this.s.startsWith('...', this.i)) {
      this.i += 3;
      return ELISION;
    }
    const lit = /^(true|false|null|-?\d+(\.\d+)?([eE][+-]?\d+)?)/.exec(this.s.slice(this.i, this.i + 64));
    if (!lit) this.fail('unexpected value');
    this.i += lit[0].length;
    return lit[0];
  }

  private string(): string {
    const start = this.i++;
    while (this.i < this.s.length) {
      const c = this.s[this.i];
      if (c === '\\') this.i += 2;
      else if (c === '"') {
        this.i++;
        return this.s.slice(start, this.i);
      } else this.i++;
    }
    return this.fail('unterminated string');
  }

  /** Members until `close`; a `"key": value` inside brackets makes the array an object. */
  private members(close: string): { items: string[]; keyed: boolean } {
    const items: string[] = [];
    let keyed = false;
    for (;;) {
      this.ws();
      if (this.s[this.i] === close) {
        this.i++;
        return { items, keyed };
      }
      if (this.s[this.i] === ',') {
        this.i++;
        continue;
      }
      const first = this.value();
      this.ws();
      if (this.s[this.i] === ':') {
        if (first === ELISION || !first.startsWith('"')) this.fail('bad key');
        this.i++;
        const v = this.value();
        keyed = true;
        if (v !== ELISION) items.push(`${first}:${v}`);
      } else if (first !== ELISION) {
        if (keyed || close === '}') this.fail('value without key');
        items.push(first);
      }
    }
  }

  private object(): string {
    this.i++;
    const { items } = this.members('}');
    return `{${items.join(',')}}`;
  }

  private array(): string {
    this.i++;
    const { items, keyed } = this.members(']');
    return keyed ? `{${items.join(',')}}` : `[${items.join(',')}]`;
  }
}
