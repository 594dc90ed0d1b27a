export { runStorageConformance, type ConformanceSubject } from './conformance.js';
export * as fixtures from './fixtures.js';
