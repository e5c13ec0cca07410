#!/usr/bin/env node
// The `mizan` command. Sources are TypeScript, run through tsx's loader, so there is no build step
// and user strategies written in TypeScript load the same way.
import { register } from 'tsx/esm/api';

register();
await import('../src/cli/main.ts');
