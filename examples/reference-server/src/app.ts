/** The HTTP surface lives in `http/`; this is its front door. */
export { createApp, REQUEST_TIMEOUT_MS, type HttpOptions } from './http/app.js';
