import { onEveryStore } from '../support/every-store';
import { domainFlow } from './domains.suite';
import { samlSuite } from './saml-stores.suite';
import { ssoPeers } from './sso-helpers';

// One file starts the database servers once for both suites.
const peers = ssoPeers();

onEveryStore((name, describeFn, store) => {
  domainFlow(name, describeFn, store, peers);
  samlSuite(name, describeFn, store, peers);
});
