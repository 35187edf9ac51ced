/** `authgate/api-keys`: API keys for scripts, services and integrations, as a plugin. */
export { apiKeys, type ApiKeysOptions, type ApiKeysPlugin } from './api-keys/api-keys-plugin';
export { ApiKeys, apiKeyOf, API_KEY_CHANNEL, type ApiKeyView, type ApiKeyUse } from './api-keys/api-keys';
export { API_KEY_PREFIX, isApiKey } from './api-keys/api-key-format';
