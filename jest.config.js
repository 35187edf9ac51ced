const base = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  transform: {
    '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json', diagnostics: false }],
  },
};

/** @type {import('jest').Config} */
module.exports = {
  testTimeout: 20000,
  maxWorkers: 2,
  projects: [
    { ...base, displayName: 'express5', testMatch: ['**/*.test.ts'] },
    // express is a peer dependency (^4.21 || ^5): the HTTP suites run again on Express 4.
    {
      ...base,
      displayName: 'express4',
      testMatch: ['**/test/routes.test.ts', '**/test/security/*.test.ts', '**/test/middleware/*.test.ts', '**/test/providers/*.test.ts', '**/test/avatar/route.test.ts', '**/test/account/account-router.test.ts'],
      moduleNameMapper: { '^express$': 'express4' },
    },
  ],
};
