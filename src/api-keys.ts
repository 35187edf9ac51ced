/** `authgate/api-keys`: API keys for scripts, services and integrations, as a plugin. */
export { apiKeys, API_KEY_ERROR_CODES, type ApiKeysOptions, type ApiKeysPlugin } from './plugins/api-keys/api-keys-plugin';
export { ApiKeys, API_KEY_CHANNEL, orgKeyHolder, type ApiKeyView, type KeyHolder, type ApiKeyServiceOptions } from './plugins/api-keys/api-key-service';
export { apiKeyOf, type ApiKeyUse } from './plugin-api/api-key-use';
export { API_KEY_PREFIX, isApiKey } from './plugins/api-keys/api-key-format';
