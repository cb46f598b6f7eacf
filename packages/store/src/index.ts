export type { Engine } from './engines.js';
export { CredentialKeyError, Keyring, keyFileName, keyIdOf, keyVariable, newKey } from './keyring.js';
export { type StoreLogger, silentStoreLogger } from './logger.js';
export {
  type CredentialInfo,
  defaultDataDir,
  openStore,
  openStoreFromEnvironment,
  type PersonCredentials,
  Store,
  type StoreOptions,
  StoreStartError,
  storeSecrets,
} from './store.js';
