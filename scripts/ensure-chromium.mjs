#!/usr/bin/env node
// Makes sure Debian's chromium is present for the browser test of the HTML backtest report
// (`npm test` runs this first, as `pretest`; `.ci/run` too). Installs the Debian package when it is
// missing and this user can (root with apt-get); never downloads a browser of its own. Otherwise it
// says what to run and leaves it to the test, which then fails naming the missing browser.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

const CHROMIUM = '/usr/bin/chromium';

if (existsSync(CHROMIUM)) process.exit(0);

const root = typeof process.getuid === 'function' && process.getuid() === 0;
const apt = spawnSync('sh', ['-c', 'command -v apt-get'], { encoding: 'utf8' }).status === 0;
if (!root || !apt) {
  process.stderr.write(
    `${CHROMIUM} is missing and cannot be installed from here (needs root and apt-get): run \`apt-get install -y chromium\`; the HTML report's browser test fails without it.\n`,
  );
  process.exit(0);
}
process.stderr.write(`${CHROMIUM} is missing: installing Debian's chromium for the HTML report's browser test (apt-get install chromium)...\n`);
const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
const run = (args) => spawnSync('apt-get', args, { stdio: ['ignore', 'ignore', 'inherit'], env }).status === 0;
if (!run(['update', '-qq']) || !run(['install', '-y', '-qq', 'chromium']) || !existsSync(CHROMIUM)) {
  process.stderr.write("installing chromium failed; the HTML report's browser test will fail.\n");
}
