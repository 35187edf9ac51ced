import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DIFFERENCES } from './differences';

it("the manual's compatibility table lists exactly the differences the compatibility suites allow", () => {
  const section = readFileSync(join(__dirname, '../../docs/compatibility.md'), 'utf8');
  const table = section.slice(section.indexOf('| case | go-pkgz/auth v2.2.0 |'), section.indexOf('\n\n', section.indexOf('| case | go-pkgz/auth v2.2.0 |')));
  const rows = table
    .split('\n')
    .slice(2)
    .map((line) => line.split(' | ')[0]?.replace(/^\| /, ''));
  expect(rows).toEqual(DIFFERENCES.map((d) => d.readme));
});
