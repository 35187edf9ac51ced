import { el } from '../ui-dom';
import { section, type SectionKit } from './section';

const NAME_FIELDS = [
  ['FirstName', 'ui.account.firstName', 'given-name'],
  ['LastName', 'ui.account.lastName', 'family-name'],
  ['NickName', 'ui.account.nickName', 'nickname'],
] as const;

/** The account's profile (its names) and its e-mail address: a new one with the password, then the code mailed to it. */
export function profileSection(kit: SectionKit): HTMLElement {
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
      [kit.field(kit.t('ui.reset.code'), { name: 'code', autocomplete: 'one-time-code' })],
      async ({ code = '' }) => {
        await kit.client.account.confirmEmail(code);
        kit.say(kit.t('ui.account.emailChanged'));
        await redraw();
      },
      false,
    );
    confirm.hidden = true;
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
    return [names, el('p', {}, kit.t('ui.account.email', { Address: profile.Email })), change, confirm];
  });
}
