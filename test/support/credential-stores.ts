import { ACCOUNT_STORE_KINDS, type FreshStore } from './account-stores';

/** Describes `title` once per store kind the account flows use (memory, level, PostgreSQL), with a fresh credential store per test (`store()`). */
export function describeOnEveryCredentialStore(title: string, body: (store: () => FreshStore) => void): void {
  for (const [name, describeFn, fresh] of ACCOUNT_STORE_KINDS) {
    describeFn(`${title} on the ${name} credential store`, () => {
      let current: FreshStore | undefined;
      beforeEach(async () => {
        current = await fresh();
      });
      afterEach(() => current?.cleanup());
      body(() => current as FreshStore);
    });
  }
}
