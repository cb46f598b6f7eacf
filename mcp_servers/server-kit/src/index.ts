export {
  type CommandLineOptions,
  type HttpListen,
  type ParseArgsOptions,
  parseServerCommandLine,
  type ServerCommand,
  sharedUsage,
} from './command-line.js';
export { type HttpHandle, type HttpOptions, serveHttp } from './http.js';
export { type Logger, silentLogger, stderrLogger } from './log.js';
export { runServer, type ServerParts, type ServerProgram, type Serving, UsageError } from './run-server.js';
