import { leaveSignInHint } from '../sign-in-hint';
import { section, type SectionKit } from './section';

/**
 * The account's password: the current one, then the new one (the server says what it refuses).
 * The change ends every session of the account, this one too: the screens sign out, and the
 * sign-in screen says why, with the address filled in.
 */
export function passwordSection(kit: SectionKit): HTMLElement {
  return section(kit, 'password', kit.t('ui.account.password'), async () => {
    const form = kit.form(
      kit.t('ui.account.changePassword'),
      [kit.field(kit.t('ui.account.currentPassword'), { name: 'current', type: 'password', autocomplete: 'current-password' }), kit.newPassword(kit.t('ui.reset.password'))],
      async ({ current = '', password = '' }) => {
        await kit.client.password.change({ current, password });
        form.reset();
        kit.say(kit.t('ui.account.passwordChanged'));
        leaveSignInHint({ said: kit.t('ui.account.passwordChangedSignIn'), user: kit.client.session.user?.name ?? '' });
        await kit.client.signOut().catch(() => undefined);
      },
      false,
    );
    return [form];
  });
}
