#!/usr/bin/env node
// The `mizan` command. Sources are TypeScript, run through tsx's loader, so there is no build step
// and user strategies written in TypeScript load the same way (also from a folder outside this
// checkout: src/runtime/strategy-hook.mjs).
import { registerLoaders } from '../src/runtime/ts-loader.mjs';

registerLoaders();
await import('../src/cli.ts');
