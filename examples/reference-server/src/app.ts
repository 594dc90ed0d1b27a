/** The HTTP surface lives in `http/`; this is its front door. */
export { createApp, type HttpOptions } from './http/app.js';
