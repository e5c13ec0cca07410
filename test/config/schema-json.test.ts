import { describe, it, expect } from 'vitest';
import { fileURLToPath } from 'node:url';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildJsonSchema, jsonSchemaText, writeJsonSchema } from '../../src/config/index.js';

const committed = fileURLToPath(new URL('../../config/schema.json', import.meta.url));

describe('config/schema.json', () => {
  it('equals what the definitions generate (run `node bin/run-ts.js src/config/write-schema.ts` after a change)', async () => {
    expect(await readFile(committed, 'utf8')).toBe(jsonSchemaText());
  });

  it('is strict, lists the modes and requires mode and strategies', () => {
    const s = buildJsonSchema() as {
      required: string[];
      additionalProperties: boolean;
      properties: Record<string, { enum?: string[]; items?: { required?: string[]; additionalProperties?: boolean } }>;
    };
    expect(s.required.sort()).toEqual(['mode', 'strategies']);
    expect(s.additionalProperties).toBe(false);
    expect(s.properties.mode?.enum).toEqual(['live', 'paper', 'backtest']);
    expect(s.properties.strategies?.items?.required?.sort()).toEqual(['markets', 'name', 'strategy']);
    expect(s.properties.strategies?.items?.additionalProperties).toBe(false);
  });

  it('writeJsonSchema writes the same text to any file', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'mizan-schema-'));
    try {
      const file = join(dir, 'nested', 'schema.json');
      await writeJsonSchema(file);
      expect(await readFile(file, 'utf8')).toBe(jsonSchemaText());
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
