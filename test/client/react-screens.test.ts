import { createElement } from 'react';
import { renderToString } from 'react-dom/server';
import { Account, Organization, OrgSwitcher, SignIn, SignUp, UserButton } from '../../src/react';

describe('the screens of authgate/react on a server render', () => {
  it('render their elements with the attributes given and nothing else, touching no browser global', () => {
    expect(renderToString(createElement(SignIn, { redirect: '/home', authPath: '/auth', lang: 'de', className: 'login', onSignedIn: () => undefined }))).toBe(
      '<authgate-sign-in class="login" auth-path="/auth" lang="de" redirect="/home"></authgate-sign-in>',
    );
    expect(renderToString(createElement(SignUp, { accountPath: '/accounts' }))).toBe('<authgate-sign-up account-path="/accounts"></authgate-sign-up>');
    expect(renderToString(createElement(UserButton, { baseUrl: 'https://app.example' }))).toBe('<authgate-user-button base-url="https://app.example"></authgate-user-button>');
    expect(renderToString(createElement(Account, {}))).toBe('<authgate-account></authgate-account>');
    expect(renderToString(createElement(Organization, { org: 'acme' }))).toBe('<authgate-organization org="acme"></authgate-organization>');
    expect(renderToString(createElement(OrgSwitcher, { onOrgSwitched: () => undefined }))).toBe('<authgate-org-switcher></authgate-org-switcher>');
    // The page's own content goes into the screen's slots.
    expect(renderToString(createElement(SignIn, { header: createElement('strong', {}, 'Acme'), footer: 'Terms apply.' }))).toBe(
      '<authgate-sign-in><div slot="header"><strong>Acme</strong></div><div slot="footer">Terms apply.</div></authgate-sign-in>',
    );
  });
});
