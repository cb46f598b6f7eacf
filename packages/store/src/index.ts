export { Coordination, claimRetentionMs, type EventClaim, type ThreadTurn } from './coordination.js';
export type { Engine } from './engines.js';
export { CredentialKeyError, Keyring, keyFileName, keyIdOf, keyVariable, newKey } from './keyring.js';
export { type StoreLogger, silentStoreLogger } from './logger.js';
export {
  type CredentialInfo,
  defaultDataDir,
  type InstallationQuery,
  type InstallationRecord,
  installationId,
  openStore,
  openStoreFromEnvironment,
  type PersonCredentials,
  Store,
  type StoreOptions,
  StoreStartError,
  storeSecrets,
} from './store.js';
