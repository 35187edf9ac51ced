import type { MessagesByLocale } from './translations';

/** The words of the security notices (`notifications`): the mails by kind and what happened. */
export const NOTICE_MESSAGES: MessagesByLocale = {
  en: {
    'mail.notice.new-device':
      'Hello {{.Name}}, your account was signed in to from a browser it had not been used with before: {{.Device}}, {{.When}}. If it was you, there is nothing to do. If it was not, reset your password, which signs out everywhere and removes what was added.\n',
    'mail.notice.password':
      'Hello {{.Name}}, on your account {{.What}} ({{.When}}). If it was you, there is nothing to do. If it was not, reset your password, which signs out everywhere and removes what was added.\n',
    'mail.notice.email':
      'Hello {{.Name}}, on your account {{.What}} ({{.When}}). If it was you, there is nothing to do. If it was not, reset your password, which signs out everywhere and removes what was added.\n',
    'mail.notice.credentials':
      'Hello {{.Name}}, on your account {{.What}}. If it was you, there is nothing to do. If it was not, reset your password, which signs out everywhere and removes what was added.\n',
    'mail.notice.banned': 'Hello {{.Name}}, your account was suspended by an administrator ({{.When}}). Contact the site if you think this is a mistake.\n',
    'mail.notice.what.passwordReset': 'the password was reset',
    'mail.notice.what.passwordChanged': 'the password was changed',
    'mail.notice.what.emailChanged': 'the e-mail address was changed',
    'mail.notice.what.added': '{{.Kind}} was added',
    'mail.notice.what.removed': '{{.Kind}} was removed',
    'mail.notice.what.twoFactorOn': '{{.Kind}} was turned on',
    'mail.notice.what.twoFactorOff': '{{.Kind}} was turned off',
    'mail.notice.kind.totp': 'two-factor authentication',
    'mail.notice.kind.passkey': 'a passkey',
    'mail.notice.kind.linked_login': 'a linked login',
    'mail.notice.kind.api_key': 'an API key',
    'mail.notice.kind.other': 'a credential',
    'mail.notice.unknownBrowser': 'an unknown browser',
  },
  de: {
    'mail.notice.new-device':
      'Hallo {{.Name}}, bei Ihrem Konto wurde sich von einem Browser angemeldet, der damit noch nie verwendet wurde: {{.Device}}, {{.When}}. Wenn Sie es waren, ist nichts zu tun. Wenn nicht, setzen Sie Ihr Passwort zurück: Das meldet Sie überall ab und entfernt, was hinzugefügt wurde.\n',
    'mail.notice.password':
      'Hallo {{.Name}}, bei Ihrem Konto gilt: {{.What}} ({{.When}}). Wenn Sie es waren, ist nichts zu tun. Wenn nicht, setzen Sie Ihr Passwort zurück: Das meldet Sie überall ab und entfernt, was hinzugefügt wurde.\n',
    'mail.notice.email':
      'Hallo {{.Name}}, bei Ihrem Konto gilt: {{.What}} ({{.When}}). Wenn Sie es waren, ist nichts zu tun. Wenn nicht, setzen Sie Ihr Passwort zurück: Das meldet Sie überall ab und entfernt, was hinzugefügt wurde.\n',
    'mail.notice.credentials':
      'Hallo {{.Name}}, bei Ihrem Konto gilt: {{.What}}. Wenn Sie es waren, ist nichts zu tun. Wenn nicht, setzen Sie Ihr Passwort zurück: Das meldet Sie überall ab und entfernt, was hinzugefügt wurde.\n',
    'mail.notice.banned': 'Hallo {{.Name}}, Ihr Konto wurde von einem Administrator gesperrt ({{.When}}). Wenden Sie sich an die Website, wenn Sie das für einen Fehler halten.\n',
    'mail.notice.what.passwordReset': 'das Passwort wurde zurückgesetzt',
    'mail.notice.what.passwordChanged': 'das Passwort wurde geändert',
    'mail.notice.what.emailChanged': 'die E-Mail-Adresse wurde geändert',
    'mail.notice.what.added': '{{.Kind}} wurde hinzugefügt',
    'mail.notice.what.removed': '{{.Kind}} wurde entfernt',
    'mail.notice.what.twoFactorOn': '{{.Kind}} wurde eingeschaltet',
    'mail.notice.what.twoFactorOff': '{{.Kind}} wurde ausgeschaltet',
    'mail.notice.kind.totp': 'die Zwei-Faktor-Authentifizierung',
    'mail.notice.kind.passkey': 'ein Passkey',
    'mail.notice.kind.linked_login': 'eine verknüpfte Anmeldung',
    'mail.notice.kind.api_key': 'ein API-Schlüssel',
    'mail.notice.kind.other': 'ein Zugang',
    'mail.notice.unknownBrowser': 'ein unbekannter Browser',
  },
  fr: {
    'mail.notice.new-device':
      "Bonjour {{.Name}}, votre compte a été ouvert depuis un navigateur jamais utilisé avec lui auparavant : {{.Device}}, {{.When}}. Si c'était vous, il n'y a rien à faire. Sinon, réinitialisez votre mot de passe : cela vous déconnecte partout et retire ce qui a été ajouté.\n",
    'mail.notice.password':
      "Bonjour {{.Name}}, sur votre compte : {{.What}} ({{.When}}). Si c'était vous, il n'y a rien à faire. Sinon, réinitialisez votre mot de passe : cela vous déconnecte partout et retire ce qui a été ajouté.\n",
    'mail.notice.email':
      "Bonjour {{.Name}}, sur votre compte : {{.What}} ({{.When}}). Si c'était vous, il n'y a rien à faire. Sinon, réinitialisez votre mot de passe : cela vous déconnecte partout et retire ce qui a été ajouté.\n",
    'mail.notice.credentials':
      "Bonjour {{.Name}}, sur votre compte : {{.What}}. Si c'était vous, il n'y a rien à faire. Sinon, réinitialisez votre mot de passe : cela vous déconnecte partout et retire ce qui a été ajouté.\n",
    'mail.notice.banned': "Bonjour {{.Name}}, votre compte a été suspendu par un administrateur ({{.When}}). Contactez le site si vous pensez qu'il s'agit d'une erreur.\n",
    'mail.notice.what.passwordReset': 'le mot de passe a été réinitialisé',
    'mail.notice.what.passwordChanged': 'le mot de passe a été modifié',
    'mail.notice.what.emailChanged': "l'adresse e-mail a été modifiée",
    'mail.notice.what.added': '{{.Kind}} a été ajouté',
    'mail.notice.what.removed': '{{.Kind}} a été retiré',
    'mail.notice.what.twoFactorOn': '{{.Kind}} a été activée',
    'mail.notice.what.twoFactorOff': '{{.Kind}} a été désactivée',
    'mail.notice.kind.totp': "l'authentification à deux facteurs",
    'mail.notice.kind.passkey': "une clé d'accès",
    'mail.notice.kind.linked_login': 'une connexion liée',
    'mail.notice.kind.api_key': "une clé d'API",
    'mail.notice.kind.other': "un moyen d'authentification",
    'mail.notice.unknownBrowser': 'un navigateur inconnu',
  },
  es: {
    'mail.notice.new-device':
      'Hola {{.Name}}, se inició sesión en tu cuenta desde un navegador que nunca se había usado con ella: {{.Device}}, {{.When}}. Si fuiste tú, no hay nada que hacer. Si no, restablece tu contraseña: eso cierra todas las sesiones y quita lo que se añadió.\n',
    'mail.notice.password':
      'Hola {{.Name}}, en tu cuenta: {{.What}} ({{.When}}). Si fuiste tú, no hay nada que hacer. Si no, restablece tu contraseña: eso cierra todas las sesiones y quita lo que se añadió.\n',
    'mail.notice.email':
      'Hola {{.Name}}, en tu cuenta: {{.What}} ({{.When}}). Si fuiste tú, no hay nada que hacer. Si no, restablece tu contraseña: eso cierra todas las sesiones y quita lo que se añadió.\n',
    'mail.notice.credentials':
      'Hola {{.Name}}, en tu cuenta: {{.What}}. Si fuiste tú, no hay nada que hacer. Si no, restablece tu contraseña: eso cierra todas las sesiones y quita lo que se añadió.\n',
    'mail.notice.banned': 'Hola {{.Name}}, un administrador suspendió tu cuenta ({{.When}}). Contacta con el sitio si crees que es un error.\n',
    'mail.notice.what.passwordReset': 'se restableció la contraseña',
    'mail.notice.what.passwordChanged': 'se cambió la contraseña',
    'mail.notice.what.emailChanged': 'se cambió la dirección de correo',
    'mail.notice.what.added': 'se añadió {{.Kind}}',
    'mail.notice.what.removed': 'se quitó {{.Kind}}',
    'mail.notice.what.twoFactorOn': 'se activó {{.Kind}}',
    'mail.notice.what.twoFactorOff': 'se desactivó {{.Kind}}',
    'mail.notice.kind.totp': 'la autenticación en dos pasos',
    'mail.notice.kind.passkey': 'una llave de acceso',
    'mail.notice.kind.linked_login': 'un inicio de sesión vinculado',
    'mail.notice.kind.api_key': 'una clave de API',
    'mail.notice.kind.other': 'una credencial',
    'mail.notice.unknownBrowser': 'un navegador desconocido',
  },
};
