// How the fake Slack reaches the app: envelopes over a Socket Mode WebSocket, or events over HTTP (the
// Events API) signed as Slack signs them.
import { createHmac } from 'node:crypto';
import type { Server } from 'node:http';
import { type WebSocket, WebSocketServer } from 'ws';
import type { SlackState } from './fake-slack-state.js';
import type { FakeSlack } from './fake-slack-types.js';

export interface SocketMode {
  /** Sends an envelope of `type` once a client is connected; resolves with its envelope id. */
  send(type: string, payload: Record<string, unknown>, retryAttempt?: number): Promise<string>;
  connected(): Promise<void>;
  /** The number the next envelope will carry. */
  nextEnvelope(): number;
  close(): void;
}

/** Socket Mode at `/socket` of `server`: says hello to each client and records its acks. */
export function attachSocketMode(server: Server, state: SlackState): SocketMode {
  const sockets = new Set<WebSocket>();
  let onConnected: Array<() => void> = [];
  let envelopeCount = 0;
  const socketServer = new WebSocketServer({ server, path: '/socket' });
  socketServer.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('message', (data) => {
      const ack = JSON.parse(String(data)) as { envelope_id?: string; payload?: Record<string, unknown> };
      if (ack.envelope_id) state.acks.push(ack.envelope_id);
      if (ack.envelope_id && ack.payload) state.ackPayloads.set(ack.envelope_id, ack.payload);
    });
    socket.on('close', () => sockets.delete(socket));
    socket.send(
      JSON.stringify({
        type: 'hello',
        num_connections: 1,
        debug_info: { host: 'fake' },
        connection_info: { app_id: 'A0001' },
      }),
    );
    for (const resolve of onConnected) resolve();
    onConnected = [];
  });
  const connected = () =>
    sockets.size > 0 ? Promise.resolve() : new Promise<void>((resolve) => onConnected.push(resolve));
  return {
    async send(type, payload, retryAttempt = 0) {
      await connected();
      const envelopeId = `envelope-${++envelopeCount}`;
      const envelope = {
        envelope_id: envelopeId,
        type,
        accepts_response_payload: type !== 'events_api',
        retry_attempt: retryAttempt,
        retry_reason: retryAttempt ? 'timeout' : '',
        payload,
      };
      for (const socket of sockets) socket.send(JSON.stringify(envelope));
      return envelopeId;
    },
    connected,
    nextEnvelope: () => envelopeCount + 1,
    close() {
      for (const socket of sockets) socket.terminate();
      socketServer.close();
    },
  };
}

/** Slack's Events API delivery: the body signed with the app's signing secret (v0, HMAC-SHA256). */
async function deliver(
  state: SlackState,
  { url, secret }: { url: string; secret: string },
  payload: Record<string, unknown>,
  retryNum: number,
) {
  const body = JSON.stringify(payload);
  const timestamp = Math.floor(Date.now() / 1000);
  const signature = `v0=${createHmac('sha256', secret).update(`v0:${timestamp}:${body}`).digest('hex')}`;
  const response = await fetch(url, {
    method: 'POST',
    body,
    headers: {
      'content-type': 'application/json',
      'x-slack-request-timestamp': String(timestamp),
      'x-slack-signature': signature,
      ...(retryNum > 0
        ? { 'x-slack-retry-num': String(retryNum), 'x-slack-retry-reason': 'http_timeout' }
        : {}),
    },
    signal: AbortSignal.timeout(10_000),
  });
  await response.arrayBuffer();
  state.deliveries.push({ eventId: String(payload.event_id), retryNum, status: response.status });
  return response.status;
}

/**
 * Pushes an event as an `event_callback` for its team (the event's, else its user's), with the
 * authorization of the app's install there: over HTTP when `deliverOverHttp` was called, else over
 * Socket Mode.
 */
export function eventPusher(state: SlackState, socketMode: SocketMode): FakeSlack['push'] {
  let eventCount = 0;
  return async (event, options = {}) => {
    const team = typeof event.team === 'string' ? event.team : state.teamOf(event.user);
    const workspace = state.workspaces.get(team);
    const payload = {
      token: 'verification',
      team_id: team,
      ...(workspace?.enterprise ? { enterprise_id: workspace.enterprise } : {}),
      api_app_id: 'A0001',
      type: 'event_callback',
      // Counted apart from envelopes: events pushed at the same moment still get their own ids.
      event_id: options.eventId ?? `Ev${++eventCount}`,
      event_time: 1,
      ...(workspace
        ? {
            authorizations: [
              {
                team_id: workspace.orgWide ? null : team,
                enterprise_id: workspace.enterprise ?? null,
                user_id: workspace.botUserId,
                is_bot: true,
                is_enterprise_install: workspace.orgWide === true,
              },
            ],
            is_ext_shared_channel: false,
          }
        : {}),
      event,
    };
    if (!state.http) return socketMode.send('events_api', payload, options.retryAttempt ?? 0);
    await deliver(state, state.http, payload, options.retryAttempt ?? 0);
    return payload.event_id;
  };
}
