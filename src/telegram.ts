/** `authgate/telegram`: login through a Telegram bot (the Bot API over `fetch`: no package to install); register it with `auth.addTelegramProvider()`. */
export { TelegramProvider, type TelegramProviderOptions } from './providers/telegram/telegram-provider';
