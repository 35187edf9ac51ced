import type { MessagesByLocale } from '../../plugin-kit/helpers';

/** The organizations plugin's words: its error codes and the invitation mail (`{{.Org}}`, `{{.Site}}`, `{{.Role}}`, `{{.Link}}`, `{{.Expires}}`). */
export const ORG_MESSAGES: MessagesByLocale = {
  en: {
    'error.org_required': 'Choose an organization to act in first.',
    'error.not_a_member': 'You are not a member of this organization.',
    'error.role_required': 'Your role in this organization does not allow this.',
    'error.permission_required': 'Your roles in this organization do not allow this.',
    'error.last_owner': 'An organization needs at least one owner.',
    'error.slug_taken': 'This address is taken by another organization.',
    'error.invitation_invalid': 'This invitation is not valid any more.',
    'error.already_member': 'This person is a member already.',
    'error.limit_reached': 'A limit was reached: remove something first.',
    'mail.invitation':
      'You are invited to join {{.Org}} on {{.Site}} as {{.Role}}.\n\nOpen this link to accept (log in first if asked): {{.Link}}\n\nThe invitation expires on {{.Expires}}. If you did not expect it, ignore this mail.',
  },
  de: {
    'error.org_required': 'Wählen Sie zuerst eine Organisation, in der Sie handeln.',
    'error.not_a_member': 'Sie sind kein Mitglied dieser Organisation.',
    'error.role_required': 'Ihre Rolle in dieser Organisation erlaubt das nicht.',
    'error.permission_required': 'Ihre Rollen in dieser Organisation erlauben das nicht.',
    'error.last_owner': 'Eine Organisation braucht mindestens einen Eigentümer.',
    'error.slug_taken': 'Diese Adresse ist bereits von einer anderen Organisation belegt.',
    'error.invitation_invalid': 'Diese Einladung ist nicht mehr gültig.',
    'error.already_member': 'Diese Person ist bereits Mitglied.',
    'error.limit_reached': 'Eine Grenze ist erreicht: Entfernen Sie zuerst etwas.',
    'mail.invitation':
      'Sie sind eingeladen, {{.Org}} auf {{.Site}} als {{.Role}} beizutreten.\n\nÖffnen Sie diesen Link, um anzunehmen (melden Sie sich zuerst an, falls Sie dazu aufgefordert werden): {{.Link}}\n\nDie Einladung läuft am {{.Expires}} ab. Wenn Sie sie nicht erwartet haben, ignorieren Sie diese E-Mail.',
  },
  fr: {
    'error.org_required': "Choisissez d'abord une organisation dans laquelle agir.",
    'error.not_a_member': "Vous n'êtes pas membre de cette organisation.",
    'error.role_required': 'Votre rôle dans cette organisation ne le permet pas.',
    'error.permission_required': 'Vos rôles dans cette organisation ne le permettent pas.',
    'error.last_owner': 'Une organisation a besoin d’au moins un propriétaire.',
    'error.slug_taken': 'Cette adresse est déjà prise par une autre organisation.',
    'error.invitation_invalid': "Cette invitation n'est plus valide.",
    'error.already_member': 'Cette personne est déjà membre.',
    'error.limit_reached': "Une limite est atteinte : retirez d'abord quelque chose.",
    'mail.invitation':
      "Vous êtes invité à rejoindre {{.Org}} sur {{.Site}} en tant que {{.Role}}.\n\nOuvrez ce lien pour accepter (connectez-vous d'abord si on vous le demande) : {{.Link}}\n\nL'invitation expire le {{.Expires}}. Si vous ne l'attendiez pas, ignorez ce courriel.",
  },
  es: {
    'error.org_required': 'Elige primero una organización en la que actuar.',
    'error.not_a_member': 'No eres miembro de esta organización.',
    'error.role_required': 'Tu rol en esta organización no lo permite.',
    'error.permission_required': 'Tus roles en esta organización no lo permiten.',
    'error.last_owner': 'Una organización necesita al menos un propietario.',
    'error.slug_taken': 'Otra organización ya usa esta dirección.',
    'error.invitation_invalid': 'Esta invitación ya no es válida.',
    'error.already_member': 'Esta persona ya es miembro.',
    'error.limit_reached': 'Se alcanzó un límite: quita algo primero.',
    'mail.invitation':
      'Te invitan a unirte a {{.Org}} en {{.Site}} como {{.Role}}.\n\nAbre este enlace para aceptar (inicia sesión primero si te lo pide): {{.Link}}\n\nLa invitación caduca el {{.Expires}}. Si no la esperabas, ignora este correo.',
  },
};
