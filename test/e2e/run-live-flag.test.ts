/**
 * Issue 16 item 19: `mizan run config/default.yaml --live` used to trade on in paper mode without a
 * word. --live only confirms a file that says `mode: live`: anything else is refused, with the reason,
 * before anything starts or connects.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { defaultConfigWith, mizan, tempDir } from './cli.js';

const tmp = tempDir();
afterAll(() => tmp.remove());

describe('mizan run --live on a paper config', { timeout: 120_000 }, () => {
  it('refuses with the reason and exit 1, before the simulator or the journal is touched', async () => {
    const journal = join(tmp.dir, 'paper.sqlite');
    const config = tmp.file('paper.yaml', defaultConfigWith(journal));
    // --duration: on the old code the run would go on in paper mode; it stops by itself after 8 s.
    const r = await mizan(['run', config, '--live', '--duration', '8']);
    expect(r.code, r.all).toBe(1);
    expect(r.stderr).toMatch(/--live.*mode: paper/);
    expect(r.stderr).toContain(config);
    expect(r.all).not.toContain('embedded simulator');
    expect(existsSync(journal)).toBe(false);
  });
});
