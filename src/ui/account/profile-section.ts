import { el } from '../ui-dom';
import { leaveSignInHint } from '../sign-in-hint';
import { section, type SectionKit } from './section';

const NAME_FIELDS = [
  ['FirstName', 'ui.account.firstName', 'given-name'],
  ['LastName', 'ui.account.lastName', 'family-name'],
  ['NickName', 'ui.account.nickName', 'nickname'],
] as const;

/** The code of an e-mail change's mail, opened as its link (`#email-code=<code>`): taken out of the address. */
function mailedCode(): string | null {
  const fragment = new URLSearchParams(location.hash.replace(/^#/, ''));
  const code = fragment.get('email-code');
  if (code === null) return null;
  fragment.delete('email-code');
  const rest = fragment.toString();
  history.replaceState(history.state, '', `${location.pathname}${location.search}${rest === '' ? '' : `#${rest}`}`);
  return code;
}

/** The account's profile (its names) and its e-mail address: a new one with the password, then the code mailed to it (typed, or brought by the mail's link). */
export function profileSection(kit: SectionKit): HTMLElement {
  let opened = mailedCode();
  return section(kit, 'profile', kit.t('ui.account.profile'), async (redraw) => {
    const profile = await kit.client.account.profile();
    const names = kit.form(
      kit.t('ui.account.save'),
      NAME_FIELDS.map(([name, label, autocomplete]) => {
        const field = kit.field(kit.t(label), { name, autocomplete, maxlength: '100', value: typeof profile[name] === 'string' ? profile[name] : '' });
        field.querySelector('input')?.removeAttribute('required');
        return field;
      }),
      async (values) => {
        await kit.client.account.updateProfile(Object.fromEntries(NAME_FIELDS.map(([name]) => [name, values[name] ?? ''])));
        kit.say(kit.t('ui.account.profileSaved'));
      },
      false,
    );
    const confirm = kit.form(
      kit.t('ui.signIn.verify'),
      [kit.field(kit.t('ui.reset.code'), { name: 'code', autocomplete: 'one-time-code', ...(opened === null ? {} : { value: opened }) })],
      async ({ code = '' }) => {
        const moved = await kit.client.account.confirmEmail(code);
        kit.say(kit.t('ui.account.emailChanged'));
        // The move ended the sessions of the old address, this one too: the sign-in screen says so
        // with the new address filled in, and the screens learn it now.
        leaveSignInHint({ said: kit.t('ui.account.emailMoved', { Address: moved.Email }), user: moved.Email });
        // Still signed in (a server that keeps this session): the profile shows the new address.
        if ((await kit.client.refresh()).status === 'signed-in') await redraw();
      },
      false,
    );
    confirm.hidden = opened === null;
    opened = null;
    const change = kit.form(
      kit.t('ui.account.changeEmail'),
      [
        kit.field(kit.t('ui.account.newEmail'), { name: 'email', type: 'email', autocomplete: 'email' }),
        kit.field(kit.t('ui.account.currentPassword'), { name: 'password', type: 'password', autocomplete: 'current-password' }),
      ],
      async ({ email = '', password = '' }) => {
        await kit.client.account.changeEmail({ email, password });
        change.hidden = true;
        confirm.hidden = false;
        kit.say(kit.t('ui.account.codeSent', { Address: email }));
        confirm.querySelector('input')?.focus();
      },
      false,
    );
    if (!confirm.hidden) change.hidden = true;
    // Deleting takes the password again; the sessions end with the account, so the page signs out.
    const remove = kit.form(
      kit.t('ui.account.delete'),
      [kit.field(kit.t('ui.account.currentPassword'), { name: 'password', type: 'password', autocomplete: 'current-password' })],
      async ({ password = '' }) => {
        await kit.client.account.remove(password);
        kit.say(kit.t('ui.account.deleted'));
        await kit.client.refresh();
      },
      false,
    );
    return [names, el('p', {}, kit.t('ui.account.email', { Address: profile.Email })), change, confirm, el('p', { class: 'label' }, kit.t('ui.account.deleteHint')), remove];
  });
}
