/** Loads the exchange's stream samples from test/fixtures/exchange-samples (comments and `...` removed). */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const SAMPLES_DIR = path.resolve(here, '../../fixtures/exchange-samples');

export function loadSample(name: string): unknown {
  const text = readFileSync(path.join(SAMPLES_DIR, name), 'utf8')
    .replace(/^\s*\/\/.*$/gm, '')
    .replace(/,\s*(\.\.\.|…)\s*(?=[}\]])/g, '')
    .replace(/,\s*"…"\s*(?=[}\]])/g, '');
  return JSON.parse(text) as unknown;
}
