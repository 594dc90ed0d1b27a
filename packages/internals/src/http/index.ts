/**
 * The HTTP core of the provider and service clients: each client keeps its own error classes,
 * status → error ladder, retry policy and redirect rule, and builds them from these.
 */
export {
  MAX_RETRIES,
  MAX_TIMER_MS,
  apiKeyFault,
  checkedFetch,
  checkedLogger,
  checkedMaxRetries,
  checkedMs,
  checkedSignal,
  shown,
} from './client-options.js';
export { MAX_ERROR_BODY_BYTES, errorBodyText } from './body-text.js';
export { untilAborted } from './until-aborted.js';
export {
  errorOptions,
  requestErrorJSON,
  type RequestErrorContext,
  type RequestErrorFields,
} from './error-base.js';
export {
  exchangeJson,
  exchangeStream,
  readErrorBody,
  receiveJson,
  relativePath,
  type BodyIssue,
  type ErrorBodyParts,
  type JsonAnswer,
  type JsonExchange,
  type ReceivedJson,
  type StreamAnswer,
} from './json-exchange.js';
export { guardedLogger, logTo, type ClientLogger, type LogLevel } from './logger.js';
export { EXCERPT_LENGTH, excerpt, redact, redactDeep, safeCause } from './redact.js';
export { backoffDelay, delayBeforeRetry, parseRetryAfterHeader, parseWaitFromText } from './retry-timing.js';
export { toTransportError, type TransportErrorClasses, type TransportSettings } from './transport-errors.js';
