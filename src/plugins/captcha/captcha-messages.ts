import type { MessagesByLocale } from '../../plugin-kit/helpers';

/** The CAPTCHA plugin's words: its error codes. */
export const CAPTCHA_MESSAGES: MessagesByLocale = {
  en: { 'error.captcha_required': 'Complete the challenge to show you are a person.', 'error.captcha_invalid': 'The challenge was not passed: try it again.' },
  de: { 'error.captcha_required': 'Lösen Sie die Aufgabe, um zu zeigen, dass Sie ein Mensch sind.', 'error.captcha_invalid': 'Die Aufgabe wurde nicht bestanden: Versuchen Sie es erneut.' },
  fr: { 'error.captcha_required': 'Réussissez le test pour montrer que vous êtes une personne.', 'error.captcha_invalid': "Le test n'a pas été réussi : réessayez." },
  es: { 'error.captcha_required': 'Completa la prueba para demostrar que eres una persona.', 'error.captcha_invalid': 'No se superó la prueba: inténtalo de nuevo.' },
};
