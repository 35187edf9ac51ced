/** `authgate/telegram`: login through a Telegram bot (needs the optional package node-telegram-bot-api); register it with `auth.addTelegramProvider()`. */
export { TelegramProvider, type TelegramProviderOptions } from './providers/telegram/telegram-provider';
