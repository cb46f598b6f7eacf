import { createServer, request as forward, type Server } from 'node:http';
import { listenOnLoopback } from './ports.js';

/** A load balancer on loopback: each request goes to the next target in turn. */
export interface RoundRobinProxy {
  url: string;
  /** The target index each request went to, in order. */
  routed: number[];
  /** Sends the next request to this target instead of the next in turn (once). */
  sendNextTo(target: number): void;
  close(): Promise<void>;
}

/**
 * Starts a round-robin proxy in front of `targets` (base URLs). A target that does not answer is
 * answered 502, as a load balancer would; the proxy never retries on another target.
 */
export async function startRoundRobinProxy(targets: string[]): Promise<RoundRobinProxy> {
  const routed: number[] = [];
  let next = 0;
  let forced: number | undefined;
  const server: Server = createServer((incoming, outgoing) => {
    const index = forced ?? next++ % targets.length;
    forced = undefined;
    routed.push(index);
    const target = new URL(incoming.url ?? '/', targets[index]);
    const upstream = forward(
      target,
      { method: incoming.method, headers: { ...incoming.headers, host: target.host }, timeout: 15_000 },
      (response) => {
        outgoing.writeHead(response.statusCode ?? 502, response.headers);
        response.pipe(outgoing);
      },
    );
    upstream.on('error', () => {
      if (!outgoing.headersSent) outgoing.writeHead(502);
      outgoing.end();
    });
    upstream.on('timeout', () => upstream.destroy());
    incoming.pipe(upstream);
  });
  const url = await listenOnLoopback(server);
  return {
    url,
    routed,
    sendNextTo(target) {
      forced = target;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
