// The API reference documents exactly the package's subpath exports: each export's JavaScript
// file in dist/ names its source file in src/ (one list, in package.json).
const { exports: subpaths } = require('./package.json');

/** @type {Partial<import('typedoc').TypeDocOptions>} */
module.exports = {
  $schema: 'https://typedoc.org/schema.json',
  entryPoints: Object.values(subpaths)
    .filter((target) => typeof target === 'object')
    .map((target) => target.types.replace(/^\.\/dist\//, 'src/').replace(/\.d\.ts$/, '.ts')),
  // The build's sources and the screens (authgate/ui), which need the DOM's types.
  tsconfig: 'tsconfig.docs.json',
  out: 'var/api',
  name: 'authgate',
  readme: 'none',
  disableSources: true,
  treatWarningsAsErrors: true,
  excludePrivate: true,
  excludeInternal: true,
};
