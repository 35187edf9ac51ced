import type { MessagesByLocale } from '../../plugin-kit/helpers';

/** The single sign-on plugin's words: its error codes and its sign-out page. */
export const SSO_MESSAGES: MessagesByLocale = {
  en: {
    'page.ssoLogout.title': 'You are signed out',
    'page.ssoLogout.text': 'You are signed out of this app. Your organization’s sign-in may still remember you: sign out there too, so that the next sign-in asks who you are.',
    'page.ssoLogout.button': 'Sign out at my organization too',
    'page.ssoLogout.stay': 'Back to the app',
    'error.domain_unverified': 'This domain is not verified yet.',
    'error.domain_taken': 'Another organization has verified this domain.',
    'error.saml_invalid': 'The identity provider’s answer was not valid.',
    'error.sso_required': 'Your organization signs you in through its own identity provider: use single sign-on.',
    'error.sso_not_found': 'No single sign-on is set up for this address or organization.',
    'error.connection_disabled': 'This single sign-on connection is turned off.',
    'error.member_suspended': 'Your membership in this organization is suspended.',
  },
  de: {
    'page.ssoLogout.title': 'Sie sind abgemeldet',
    'page.ssoLogout.text':
      'Sie sind von dieser App abgemeldet. Die Anmeldung Ihrer Organisation kennt Sie vielleicht noch: Melden Sie sich auch dort ab, damit die nächste Anmeldung fragt, wer Sie sind.',
    'page.ssoLogout.button': 'Auch bei meiner Organisation abmelden',
    'page.ssoLogout.stay': 'Zurück zur App',
    'error.domain_unverified': 'Diese Domain ist noch nicht bestätigt.',
    'error.domain_taken': 'Eine andere Organisation hat diese Domain bestätigt.',
    'error.saml_invalid': 'Die Antwort des Identitätsanbieters war ungültig.',
    'error.sso_required': 'Ihre Organisation meldet Sie über ihren eigenen Identitätsanbieter an: Verwenden Sie Single Sign-on.',
    'error.sso_not_found': 'Für diese Adresse oder Organisation ist kein Single Sign-on eingerichtet.',
    'error.connection_disabled': 'Diese Single-Sign-on-Verbindung ist ausgeschaltet.',
    'error.member_suspended': 'Ihre Mitgliedschaft in dieser Organisation ist ausgesetzt.',
  },
  fr: {
    'page.ssoLogout.title': 'Vous êtes déconnecté',
    'page.ssoLogout.text':
      'Vous êtes déconnecté de cette application. La connexion de votre organisation se souvient peut-être encore de vous : déconnectez-vous aussi là-bas, pour que la prochaine connexion demande qui vous êtes.',
    'page.ssoLogout.button': 'Me déconnecter aussi de mon organisation',
    'page.ssoLogout.stay': 'Retour à l’application',
    'error.domain_unverified': "Ce domaine n'est pas encore vérifié.",
    'error.domain_taken': 'Une autre organisation a vérifié ce domaine.',
    'error.saml_invalid': "La réponse du fournisseur d'identité n'était pas valide.",
    'error.sso_required': "Votre organisation vous connecte par son propre fournisseur d'identité : utilisez l'authentification unique.",
    'error.sso_not_found': "Aucune authentification unique n'est configurée pour cette adresse ou cette organisation.",
    'error.connection_disabled': "Cette connexion d'authentification unique est désactivée.",
    'error.member_suspended': 'Votre adhésion à cette organisation est suspendue.',
  },
  es: {
    'page.ssoLogout.title': 'Has cerrado la sesión',
    'page.ssoLogout.text':
      'Has cerrado la sesión de esta aplicación. El inicio de sesión de tu organización quizá aún te recuerde: cierra la sesión también allí, para que el próximo inicio pregunte quién eres.',
    'page.ssoLogout.button': 'Cerrar también la sesión de mi organización',
    'page.ssoLogout.stay': 'Volver a la aplicación',
    'error.domain_unverified': 'Este dominio aún no está verificado.',
    'error.domain_taken': 'Otra organización ha verificado este dominio.',
    'error.saml_invalid': 'La respuesta del proveedor de identidad no era válida.',
    'error.sso_required': 'Tu organización te identifica con su propio proveedor de identidad: usa el inicio de sesión único.',
    'error.sso_not_found': 'No hay inicio de sesión único configurado para esta dirección u organización.',
    'error.connection_disabled': 'Esta conexión de inicio de sesión único está desactivada.',
    'error.member_suspended': 'Tu pertenencia a esta organización está suspendida.',
  },
};
