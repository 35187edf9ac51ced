// Jest global set-up: a folder where the test workers record the helper processes they start
// (test/support/children.ts); children-teardown.js checks that none is left.
const { mkdtempSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');

module.exports = async () => {
  process.env.AUTHGATE_TEST_CHILDREN = mkdtempSync(join(tmpdir(), 'authgate-children-'));
};
