/**
 * The plugin kit's basics: errors with codes, the logger, the checks of options and input, and what
 * an event says of a request. A small module of its own, so that a plugin's options and factory
 * can load at `require('authgate')` without the rest of the kit.
 */
export { AuthError, type AuthErrorCode, type AuthErrorReason, codeOfStatus, configError, errorBody, errorName, isUnavailable, RateLimitError } from '../base/errors';
export { type Log, type LogFields, type Logger, logTo, noopLogger, warningsLogger } from '../base/logger';
export { type EventClient, type EventListOptions, requestClient } from '../core/events/event-bus';
export { positiveMs } from '../internal/option-checks';
export { hasUnusableChars, nameField, param } from '../internal/text';
