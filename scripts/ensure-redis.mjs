#!/usr/bin/env node
// Makes sure Debian's redis-server is present for the job-queue tests (`mizan sweep --queue`,
// `mizan worker`: test/queue/). `npm test` runs this first, as `pretest`; `.ci/run` too. Installs the
// Debian package when it is missing and this user can (root, or sudo without a password, with
// apt-get); never downloads a server of its own. Otherwise it says what to run and leaves it to the
// tests, which then fail naming the missing server. The tests start their own redis-server on
// 127.0.0.1 (an ephemeral port, a temporary directory); the package's own service is not needed and
// is not started here.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

const REDIS = '/usr/bin/redis-server';

if (existsSync(REDIS)) process.exit(0);

const has = (cmd) => spawnSync('sh', ['-c', `command -v ${cmd}`], { encoding: 'utf8' }).status === 0;
const root = typeof process.getuid === 'function' && process.getuid() === 0;
const sudo = !root && has('sudo') && spawnSync('sudo', ['-n', 'true'], { stdio: 'ignore' }).status === 0;
if (!has('apt-get') || (!root && !sudo)) {
  process.stderr.write(
    `${REDIS} is missing and cannot be installed from here (needs apt-get and root or password-less sudo): run \`apt-get install -y redis-server\`; the job-queue tests (test/queue/) fail without it.\n`,
  );
  process.exit(0);
}
process.stderr.write(`${REDIS} is missing: installing Debian's redis-server for the job-queue tests (apt-get install redis-server)...\n`);
const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
const run = (args) => {
  const [cmd, full] = sudo ? ['sudo', ['-n', 'env', 'DEBIAN_FRONTEND=noninteractive', 'apt-get', ...args]] : ['apt-get', args];
  return spawnSync(cmd, full, { stdio: ['ignore', 'ignore', 'inherit'], env }).status === 0;
};
if (!run(['update', '-qq']) || !run(['install', '-y', '-qq', '--no-install-recommends', 'redis-server']) || !existsSync(REDIS)) {
  process.stderr.write('installing redis-server failed; the job-queue tests (test/queue/) will fail.\n');
}
