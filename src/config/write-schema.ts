/**
 * Writes config/schema.json from the definitions: `node bin/run-ts.js src/config/write-schema.ts [file]`.
 * Run it after changing src/config/schema*.ts; a test fails while the committed file differs.
 */
import { fileURLToPath } from 'node:url';
import { resolve } from 'node:path';
import { writeJsonSchema } from './json-schema.js';

const target = process.argv[2] ?? resolve(fileURLToPath(new URL('.', import.meta.url)), '../../config/schema.json');
await writeJsonSchema(target);
process.stdout.write(`wrote ${target}\n`);
