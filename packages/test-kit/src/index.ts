export {
  type AuthorizationServer,
  type AuthorizationServerOptions,
  startAuthorizationServer,
} from './authorization-server.js';

// What several packages' tests share. Private: never published.

export { catalogServerPath } from './catalog-server.js';
export { chromiumArgs, chromiumPath, closeBrowser } from './chromium.js';
export { demoModel } from './demo-model.js';
export { embeddedStoreFolder, seedEmbeddedStore } from './embedded-store.js';
export { fakeEmbedding, fakeEmbeddingDimensions, maxEmbeddingInputs } from './fake-embeddings.js';
export {
  type ApiCall,
  botUserId,
  type FakeSlack,
  type FakeWorkspace,
  type HistoryLimits,
  type RefusedRead,
  type StoredMessage,
  startFakeSlack,
  streamedText,
} from './fake-slack.js';
export type { AttachedFile, UploadedFile } from './fake-slack-files.js';
/** The person who speaks in the fake Slack when no one is named. */
export { human as humanUserId } from './fake-slack-state.js';
export { type FakeReply, type FakeRequest, type FakeVendor, startFakeVendor } from './fake-vendor.js';
export { followAuthorization } from './follow-redirects.js';
export { forms, formsServerPath, longChoices } from './forms-server.js';
export { weatherEntry, writeMcpConfig } from './mcp-config.js';
export { bothErasModel, type ModernServer, startModernServer } from './modern-server.js';
export {
  type ModernTask,
  type ModernTaskRequest,
  type ModernTaskServer,
  modernTaskServerPath,
  startModernTaskServer,
  tasksExtensionId,
} from './modern-task-server.js';
export { authorize, clock, type FakeAuthOptions, startFakeAuth } from './oauth-fake-server.js';
export { type PetApi, petModel, petSpec, startPetApi } from './pets.js';
export { freePort, listenOnLoopback } from './ports.js';
export { postgresBinaries, startPostgres, type TestPostgres } from './postgres.js';
export { childProcesses } from './processes.js';
export { type ProtectedServer, type ScopeOptions, startProtectedServer } from './protected-server.js';
export { type RecordedLine, recordingLogger } from './recording-logger.js';
export { recordsServerPath } from './records-server.js';
export { type RoundRobinProxy, startRoundRobinProxy } from './round-robin-proxy.js';
export {
  type RecordedCall,
  ScriptedProvider,
  type ScriptedTurn,
  toolMessage,
} from './scripted-provider.js';
export { startTaskServer, type TaskServer } from './task-server.js';
export { startStatelessServer, startTokenServer, type TokenServer, tokenOf } from './token-server.js';
export { completion, weatherModel } from './weather-model.js';
