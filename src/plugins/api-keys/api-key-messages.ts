import type { MessagesByLocale } from '../../plugin-kit/helpers';

/** The API keys plugin's words: its error codes (`limit_reached` is the organizations plugin's too). */
export const API_KEY_MESSAGES: MessagesByLocale = {
  en: { 'error.scope_required': 'This key does not have the scope this needs.', 'error.limit_reached': 'A limit was reached: remove something first.' },
  de: { 'error.scope_required': 'Diesem Schlüssel fehlt der dafür nötige Geltungsbereich.', 'error.limit_reached': 'Eine Grenze ist erreicht: Entfernen Sie zuerst etwas.' },
  fr: { 'error.scope_required': "Cette clé n'a pas la portée nécessaire.", 'error.limit_reached': "Une limite est atteinte : retirez d'abord quelque chose." },
  es: { 'error.scope_required': 'Esta clave no tiene el ámbito necesario.', 'error.limit_reached': 'Se alcanzó un límite: quita algo primero.' },
};
