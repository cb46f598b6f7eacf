import { sharedUsage } from '@ai-assistant/mcp-server-kit';

/** The HTTP port when `--http` is given without `--port`. */
export const defaultPort = 3000;

export const usage = `Usage: mcp-server-weather [--http [--port ${defaultPort}] [--host 127.0.0.1]]

Serves the get_weather tool (Japan Meteorological Agency forecasts) over MCP, protocol revisions
2025-11-25 (initialize) and 2026-07-28 (stateless, server/discover), on stdio or Streamable HTTP.

Options:
${sharedUsage(defaultPort)}
Environment:
  JMA_BASE_URL       JMA base URL (default https://www.jma.go.jp)
  JMA_TIMEOUT_MS     timeout of each JMA request in ms (default 5000)
  JMA_CACHE          "off" refetches on every call (benchmarks, debugging)
  MCP_WEATHER_CHART  "off" leaves the week's chart image out (text and structured content only)
  MCP_WEATHER_NOW    pins "today" (an ISO date-time) for replaying recorded data; unset: the real clock
  LOG_LEVEL          "info" (default) or "warn" to log less (logs go to stderr)
`;
