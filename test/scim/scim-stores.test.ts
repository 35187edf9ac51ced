import { onEveryStore } from '../support/every-store';
import { startSmtpPeer, type SmtpPeer } from '../support/smtp-peer';
import { tokenSuite } from './scim-tokens.suite';
import { usersSuite } from './scim-users.suite';

// One file starts the database servers once for both suites.
const peers = {} as { smtp: SmtpPeer };
beforeAll(async () => {
  peers.smtp = await startSmtpPeer();
});
afterAll(() => peers.smtp.close());

onEveryStore((name, describeFn, store) => {
  tokenSuite(name, describeFn, store, peers);
  usersSuite(name, describeFn, store, peers);
});
