// Jest global teardown: every helper process a test started must be gone. One still alive is
// killed (with its process group) and fails the run, naming it.
const { readdirSync, readFileSync, rmSync } = require('node:fs');
const { join } = require('node:path');

const alive = (pid) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

module.exports = async () => {
  if (process.env.AUTHGATE_TEST_TEMPLATES) rmSync(process.env.AUTHGATE_TEST_TEMPLATES, { recursive: true, force: true });
  const dir = process.env.AUTHGATE_TEST_CHILDREN;
  if (!dir) return;
  const left = [];
  for (const name of readdirSync(dir)) {
    const record = JSON.parse(readFileSync(join(dir, name), 'utf8'));
    if (!alive(record.pid)) continue;
    left.push(`${record.pid} ${record.what}`);
    try {
      process.kill(record.group ? -record.pid : record.pid, 'SIGKILL');
    } catch {
      // Gone meanwhile.
    }
  }
  rmSync(dir, { recursive: true, force: true });
  if (left.length > 0) throw new Error(`test helper processes were left running (now killed):\n${left.join('\n')}`);
};
