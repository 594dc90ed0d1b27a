export { SandboxProvider } from './provider.js';
export type {
  SandboxBalance,
  SandboxOptions,
  SandboxRequestRecord,
  SandboxTransaction,
  TransactionQuery,
} from './provider.js';
export type {
  SandboxAccount,
  SandboxAccountProfile,
  SandboxAccountSpec,
  SandboxAccountStatus,
} from './accounts.js';
export type { SandboxHolding, SandboxHoldings, SandboxSecurity } from './holdings.js';
export { FaultController } from './faults.js';
export type {
  FaultHandle,
  FaultMatch,
  SandboxEndpoint,
  SandboxFault,
  FaultCommon,
  FaultDecision,
  FaultRequestInfo,
} from './faults.js';
export { startSandboxServer } from './server.js';
export type { SandboxRequestHandler, SandboxServer, SandboxServerOptions } from './server.js';
export { currencyDecimals } from './money.js';
