// Jest global set-up: a folder where the test workers record the helper processes they start
// (test/support/children.ts); children-teardown.js checks that none is left and removes both.
const { chmodSync, mkdtempSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');

module.exports = async () => {
  process.env.AUTHGATE_TEST_CHILDREN = mkdtempSync(join(tmpdir(), 'authgate-children-'));
  // Data folders made once per run and copied for each private server (test/support/servers.ts).
  process.env.AUTHGATE_TEST_TEMPLATES = mkdtempSync(join(tmpdir(), 'authgate-templates-'));
  // Readable by the postgres user, who makes and reads its template there.
  chmodSync(process.env.AUTHGATE_TEST_TEMPLATES, 0o755);
};
