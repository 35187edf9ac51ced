import type { MessagesByLocale } from '../../plugin-kit/helpers';

/** The account service's words: its error codes and its mails (templates with `{{.Field}}` placeholders). */
export const ACCOUNT_MESSAGES: MessagesByLocale = {
  en: {
    'error.invalid_grant_type': 'This grant type is not supported.',
    'error.invalid_credential': 'Incorrect e-mail or password.',
    'error.password_mismatch': 'The two passwords differ.',
    'error.invalid_password': 'This password cannot be used: choose another.',
    'error.email_taken': 'An account with this e-mail exists already.',
    'error.invalid_email': 'This is not a valid e-mail address.',
    'error.invalid_id': 'This is not a valid account id.',
    'error.no_such_id': 'No such account.',
    'error.invalid_code': 'The code is wrong, used or expired.',
    'error.not_linked': 'No such linked login.',
    'error.last_login': 'This is the last way to sign in to the account: it cannot be removed.',
    'error.second_factor_wrong': 'The second factor is missing, wrong or used already.',
    'error.password_reset_required': 'This password must be replaced: we mailed you a link to set a new one.',
    'mail.activation':
      'Welcome! Activate your account by opening this link within a day:\n{{.Link}}\n\n' +
      'If you did not sign up, ignore this mail: nothing is activated without this link. ' +
      'A later sign-up with this address replaces this one and makes this link void.\n',
    'mail.existingAccount':
      'Someone tried to sign up with {{.Email}}, or to move another account to it, and it already has an account. ' +
      'If it was you, log in with your password instead. If it was not, you can ignore this mail: nothing changed.\n',
    'mail.reset':
      'Someone asked to reset the password of the account {{.Email}}. The code is:\n{{.Code}}\n\n' +
      'It works once, within 30 minutes. If it was not you, ignore this mail: the password stays as it is.\n',
    'mail.resetNotice':
      'The password of the account {{.Email}} was reset, and every session was signed out. Also removed: {{.Removed}}. ' +
      'If it was not you, reset the password again at once and check your mailbox.\n',
    'mail.resetNotice.nothing': 'nothing else',
    'mail.emailChange':
      'Someone asked to move the account {{.Email}} to this address. The code that confirms it is:\n{{.Code}}\n\n' +
      'It works once, within a day. If it was not you, ignore this mail: nothing changes.\n',
    'mail.emailChangeNotice': 'Someone asked to move your account {{.Email}} to {{.NewEmail}}. It moves only when the code mailed there is used. ' + 'If it was not you, change your password now.\n',
  },
  de: {
    'error.invalid_grant_type': 'Dieser Grant-Typ wird nicht unterstützt.',
    'error.invalid_credential': 'E-Mail-Adresse oder Passwort ist falsch.',
    'error.password_mismatch': 'Die beiden Passwörter stimmen nicht überein.',
    'error.invalid_password': 'Dieses Passwort kann nicht verwendet werden: Bitte wählen Sie ein anderes.',
    'error.email_taken': 'Es gibt bereits ein Konto mit dieser E-Mail-Adresse.',
    'error.invalid_email': 'Das ist keine gültige E-Mail-Adresse.',
    'error.invalid_id': 'Das ist keine gültige Konto-ID.',
    'error.no_such_id': 'Dieses Konto gibt es nicht.',
    'error.invalid_code': 'Der Code ist falsch, bereits verwendet oder abgelaufen.',
    'error.not_linked': 'Diese verknüpfte Anmeldung gibt es nicht.',
    'error.last_login': 'Das ist der letzte Weg, sich bei dem Konto anzumelden: Er kann nicht entfernt werden.',
    'error.second_factor_wrong': 'Der zweite Faktor fehlt, ist falsch oder wurde bereits verwendet.',
    'error.password_reset_required': 'Dieses Passwort muss ersetzt werden: Wir haben Ihnen einen Link zum Festlegen eines neuen gesendet.',
    'mail.activation':
      'Willkommen! Aktivieren Sie Ihr Konto, indem Sie innerhalb eines Tages diesen Link öffnen:\n{{.Link}}\n\n' +
      'Wenn Sie sich nicht registriert haben, ignorieren Sie diese E-Mail: Ohne diesen Link wird nichts aktiviert. ' +
      'Eine spätere Registrierung mit dieser Adresse ersetzt diese und macht den Link ungültig.\n',
    'mail.existingAccount':
      'Jemand hat versucht, sich mit {{.Email}} zu registrieren oder ein anderes Konto dorthin zu verschieben, doch für diese Adresse gibt es bereits ein Konto. ' +
      'Wenn Sie es waren, melden Sie sich stattdessen mit Ihrem Passwort an. Wenn nicht, können Sie diese E-Mail ignorieren: Es hat sich nichts geändert.\n',
    'mail.reset':
      'Jemand hat das Zurücksetzen des Passworts für das Konto {{.Email}} angefordert. Der Code lautet:\n{{.Code}}\n\n' +
      'Er funktioniert einmal, innerhalb von 30 Minuten. Wenn Sie es nicht waren, ignorieren Sie diese E-Mail: Das Passwort bleibt, wie es ist.\n',
    'mail.resetNotice':
      'Das Passwort des Kontos {{.Email}} wurde zurückgesetzt, und alle Sitzungen wurden abgemeldet. Außerdem entfernt: {{.Removed}}. ' +
      'Wenn Sie es nicht waren, setzen Sie das Passwort sofort erneut zurück und prüfen Sie Ihr Postfach.\n',
    'mail.resetNotice.nothing': 'sonst nichts',
    'mail.emailChange':
      'Jemand möchte das Konto {{.Email}} auf diese Adresse umstellen. Der Code zur Bestätigung lautet:\n{{.Code}}\n\n' +
      'Er funktioniert einmal, innerhalb eines Tages. Wenn Sie es nicht waren, ignorieren Sie diese E-Mail: Es ändert sich nichts.\n',
    'mail.emailChangeNotice':
      'Jemand möchte Ihr Konto {{.Email}} auf {{.NewEmail}} umstellen. Die Umstellung erfolgt erst, wenn der dorthin gesendete Code verwendet wird. ' +
      'Wenn Sie es nicht waren, ändern Sie jetzt Ihr Passwort.\n',
  },
  fr: {
    'error.invalid_grant_type': "Ce type d'autorisation n'est pas pris en charge.",
    'error.invalid_credential': 'Adresse e-mail ou mot de passe incorrect.',
    'error.password_mismatch': 'Les deux mots de passe sont différents.',
    'error.invalid_password': 'Ce mot de passe ne peut pas être utilisé : choisissez-en un autre.',
    'error.email_taken': 'Un compte existe déjà avec cette adresse e-mail.',
    'error.invalid_email': "Ce n'est pas une adresse e-mail valide.",
    'error.invalid_id': "Ce n'est pas un identifiant de compte valide.",
    'error.no_such_id': "Ce compte n'existe pas.",
    'error.invalid_code': 'Le code est erroné, déjà utilisé ou expiré.',
    'error.not_linked': "Cette connexion liée n'existe pas.",
    'error.last_login': "C'est le dernier moyen de se connecter au compte : il ne peut pas être retiré.",
    'error.second_factor_wrong': 'Le second facteur est manquant, erroné ou déjà utilisé.',
    'error.password_reset_required': 'Ce mot de passe doit être remplacé : nous vous avons envoyé un lien pour en choisir un nouveau.',
    'mail.activation':
      'Bienvenue ! Activez votre compte en ouvrant ce lien dans la journée :\n{{.Link}}\n\n' +
      "Si vous ne vous êtes pas inscrit, ignorez ce courriel : rien n'est activé sans ce lien. " +
      'Une inscription ultérieure avec cette adresse remplace celle-ci et rend ce lien caduc.\n',
    'mail.existingAccount':
      "Quelqu'un a tenté de s'inscrire avec {{.Email}}, ou d'y déplacer un autre compte, alors qu'un compte existe déjà pour cette adresse. " +
      "Si c'était vous, connectez-vous plutôt avec votre mot de passe. Sinon, vous pouvez ignorer ce courriel : rien n'a changé.\n",
    'mail.reset':
      "Quelqu'un a demandé la réinitialisation du mot de passe du compte {{.Email}}. Le code est :\n{{.Code}}\n\n" +
      "Il fonctionne une fois, pendant 30 minutes. Si ce n'était pas vous, ignorez ce courriel : le mot de passe reste inchangé.\n",
    'mail.resetNotice':
      'Le mot de passe du compte {{.Email}} a été réinitialisé et toutes les sessions ont été déconnectées. Également retiré : {{.Removed}}. ' +
      "Si ce n'était pas vous, réinitialisez immédiatement le mot de passe et vérifiez votre messagerie.\n",
    'mail.resetNotice.nothing': 'rien d’autre',
    'mail.emailChange':
      "Quelqu'un a demandé à déplacer le compte {{.Email}} vers cette adresse. Le code de confirmation est :\n{{.Code}}\n\n" +
      "Il fonctionne une fois, dans la journée. Si ce n'était pas vous, ignorez ce courriel : rien ne change.\n",
    'mail.emailChangeNotice':
      "Quelqu'un a demandé à déplacer votre compte {{.Email}} vers {{.NewEmail}}. Le déplacement n'a lieu que si le code envoyé à cette adresse est utilisé. " +
      "Si ce n'était pas vous, changez votre mot de passe maintenant.\n",
  },
  es: {
    'error.invalid_grant_type': 'Este tipo de concesión no está admitido.',
    'error.invalid_credential': 'Correo electrónico o contraseña incorrectos.',
    'error.password_mismatch': 'Las dos contraseñas no coinciden.',
    'error.invalid_password': 'Esta contraseña no se puede usar: elige otra.',
    'error.email_taken': 'Ya existe una cuenta con este correo electrónico.',
    'error.invalid_email': 'No es una dirección de correo electrónico válida.',
    'error.invalid_id': 'No es un identificador de cuenta válido.',
    'error.no_such_id': 'No existe esa cuenta.',
    'error.invalid_code': 'El código es incorrecto, ya se usó o ha caducado.',
    'error.not_linked': 'No existe ese inicio de sesión vinculado.',
    'error.last_login': 'Es la última forma de entrar en la cuenta: no se puede quitar.',
    'error.second_factor_wrong': 'Falta el segundo factor, es incorrecto o ya se usó.',
    'error.password_reset_required': 'Hay que reemplazar esta contraseña: le enviamos un enlace para elegir una nueva.',
    'mail.activation':
      '¡Bienvenido! Activa tu cuenta abriendo este enlace en el plazo de un día:\n{{.Link}}\n\n' +
      'Si no te registraste, ignora este correo: sin este enlace no se activa nada. ' +
      'Un registro posterior con esta dirección sustituye a este y anula el enlace.\n',
    'mail.existingAccount':
      'Alguien intentó registrarse con {{.Email}}, o mover otra cuenta a esa dirección, pero ya tiene una cuenta. ' +
      'Si fuiste tú, inicia sesión con tu contraseña. Si no, puedes ignorar este correo: no ha cambiado nada.\n',
    'mail.reset':
      'Alguien pidió restablecer la contraseña de la cuenta {{.Email}}. El código es:\n{{.Code}}\n\n' +
      'Funciona una vez, durante 30 minutos. Si no fuiste tú, ignora este correo: la contraseña sigue igual.\n',
    'mail.resetNotice':
      'Se restableció la contraseña de la cuenta {{.Email}} y se cerraron todas las sesiones. También se quitó: {{.Removed}}. ' +
      'Si no fuiste tú, restablece la contraseña de nuevo enseguida y revisa tu buzón.\n',
    'mail.resetNotice.nothing': 'nada más',
    'mail.emailChange':
      'Alguien pidió mover la cuenta {{.Email}} a esta dirección. El código que lo confirma es:\n{{.Code}}\n\n' +
      'Funciona una vez, durante un día. Si no fuiste tú, ignora este correo: no cambia nada.\n',
    'mail.emailChangeNotice': 'Alguien pidió mover tu cuenta {{.Email}} a {{.NewEmail}}. Solo se mueve cuando se use el código enviado allí. ' + 'Si no fuiste tú, cambia tu contraseña ahora.\n',
  },
};
