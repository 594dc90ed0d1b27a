export { runStorageConformance, type ConformanceSubject } from './conformance.js';
export { runWorkQueueConformance, type WorkQueueSubject } from './work-queue-conformance.js';
export * as fixtures from './fixtures.js';
