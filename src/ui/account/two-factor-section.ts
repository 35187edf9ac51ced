import { el } from '../ui-dom';
import { section, type SectionKit } from './section';

/** Two-factor: on or off; turning it on shows the QR code and the secret, asks a first code, then shows the recovery codes once. */
export function twoFactorSection(kit: SectionKit): HTMLElement {
  return section(kit, 'two-factor', kit.t('ui.account.twoFactor'), async (redraw) => {
    const status = await kit.client.twoFactor.status();
    if (status.enabled === true) {
      return [
        el('p', {}, kit.t('ui.account.twoFactorOn', { Left: String(status.recoveryCodesLeft ?? 0) })),
        kit.form(
          kit.t('ui.account.twoFactorOff'),
          [kit.field(kit.t('ui.signIn.code'), { name: 'code', inputmode: 'numeric', autocomplete: 'one-time-code' })],
          async ({ code = '' }) => {
            await kit.client.twoFactor.disable(code);
            kit.say(kit.t('ui.account.twoFactorDisabled'));
            await redraw();
          },
          false,
        ),
      ];
    }
    const start = kit.button(kit.t('ui.account.twoFactorStart'), (b) =>
      kit.act(b, kit.t('ui.busy'), async () => {
        const enrolment = await kit.client.twoFactor.enroll();
        const confirm = kit.form(kit.t('ui.signIn.verify'), [kit.field(kit.t('ui.signIn.code'), { name: 'code', inputmode: 'numeric', autocomplete: 'one-time-code' })], async ({ code = '' }) => {
          const done = await kit.client.twoFactor.confirm(code);
          kit.say(kit.t('ui.account.twoFactorEnabled'));
          confirm.parentElement?.replaceChildren(
            el('p', {}, kit.t('ui.account.recoveryCodes')),
            el('ul', { class: 'codes', 'aria-label': kit.t('ui.account.recoveryCodes') }, ...done.recoveryCodes.map((c) => el('li', {}, el('code', {}, c)))),
            el(
              'div',
              { class: 'row' },
              kit.copy(done.recoveryCodes.join('\n')),
              kit.button(kit.t('ui.account.saved'), () => redraw()),
            ),
          );
        });
        start.replaceWith(
          el('p', {}, kit.t('ui.account.scan')),
          el('img', { src: enrolment.qr, alt: kit.t('ui.account.qr'), width: '192', height: '192' }),
          el('p', {}, kit.t('ui.account.secret'), ' ', el('code', {}, enrolment.secret)),
          confirm,
        );
      }),
    );
    return [el('p', {}, kit.t('ui.account.twoFactorIsOff')), start];
  });
}
