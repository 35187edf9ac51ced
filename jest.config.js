const base = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  transform: {
    '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json', diagnostics: false }],
    // ES modules: Node 20.19+ requires them natively, jest's CommonJS runtime needs them compiled.
    '^.+/node_modules/(jose|oidc-provider|openid-client|oauth4webapi)/.+\\.js$': ['ts-jest', { tsconfig: { allowJs: true, module: 'commonjs', target: 'es2022' }, diagnostics: false }],
  },
  transformIgnorePatterns: ['/node_modules/(?!(jose|oidc-provider|openid-client|oauth4webapi)/)'],
};

/** @type {import('jest').Config} */
module.exports = {
  // A test's budget on a loaded 2-core machine (CI runs beside other work); a hang still fails.
  testTimeout: 60000,
  // No helper process (a server, an example instance) may outlive the run: see test/support/children.ts.
  globalSetup: '<rootDir>/test/support/children-setup.js',
  globalTeardown: '<rootDir>/test/support/children-teardown.js',
  // Three on two cores: many suites wait on their servers, child processes, npm and the browser, and
  // a third worker fills those waits (npm test under stress-ng --cpu 2: 655 s with two, 522 s with three).
  maxWorkers: 3,
  projects: [
    { ...base, displayName: 'express5', testMatch: ['**/*.test.ts'] },
    // express is a peer dependency (^4.21 || ^5): the HTTP suites run again on Express 4.
    {
      ...base,
      displayName: 'express4',
      testMatch: [
        '**/test/routes.test.ts',
        '**/test/security/*.test.ts',
        '**/test/middleware/*.test.ts',
        '**/test/providers/*.test.ts',
        '**/test/avatar/route.test.ts',
        '**/test/account/account-router.test.ts',
        '**/test/organizations/organizations.test.ts',
      ],
      moduleNameMapper: { '^express$': 'express4' },
    },
  ],
};
