/**
 * The JSON Schema of the configuration, generated from the same zod definitions that validate it
 * (input side: what may be written in YAML). Editors use it through the
 * `# yaml-language-server: $schema=./schema.json` line of the example files.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import * as z from 'zod';
import { configSchema } from './schema.js';

export function buildJsonSchema(): Record<string, unknown> {
  const schema = z.toJSONSchema(configSchema, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
  return {
    ...schema,
    title: 'mizan configuration',
    description:
      'Configuration of a mizan trading bot (mode, exchange, strategies, risk, paper, backtest, journal, logging). API keys are written as ${ENV_NAME}.',
  };
}

/** The exact text written to config/schema.json (2-space JSON, trailing newline). */
export function jsonSchemaText(): string {
  return JSON.stringify(buildJsonSchema(), null, 2) + '\n';
}

export async function writeJsonSchema(file: string): Promise<void> {
  await mkdir(dirname(file), { recursive: true });
  await writeFile(file, jsonSchemaText(), 'utf8');
}
