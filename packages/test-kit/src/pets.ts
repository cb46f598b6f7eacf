import { createServer, type Server } from 'node:http';
import type { FakeRequest } from './fake-vendor.js';
import { listenOnLoopback } from './ports.js';
import { completion } from './weather-model.js';

/** A REST API on loopback and what it received. */
export interface PetApi {
  url: string;
  received: Array<{ method: string; url: string; body: string }>;
  close(): Promise<unknown>;
}

/** A Petstore-like REST API on loopback that records every request it receives. */
export async function startPetApi(): Promise<PetApi> {
  const received: Array<{ method: string; url: string; body: string }> = [];
  const server: Server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => {
      body += chunk;
    });
    request.on('end', () => {
      received.push({ method: request.method ?? '', url: request.url ?? '', body });
      response.writeHead(request.method === 'POST' ? 201 : 200, { 'content-type': 'application/json' });
      response.end(request.method === 'POST' ? body : '[]');
    });
  });
  const base = await listenOnLoopback(server);
  return {
    url: `${base}/api`,
    received,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

/** An OpenAPI document of that API: GET /pets (a read) and POST /pets (a write). */
export const petSpec = {
  openapi: '3.0.3',
  info: { title: 'Pets', version: '1.0.0' },
  paths: {
    '/pets': {
      get: { operationId: 'listPets', summary: 'List pets' },
      post: {
        operationId: 'addPet',
        summary: 'Add a pet',
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
            },
          },
        },
      },
    },
  },
};

/** The model adds a pet, then reports what the tool said. */
export function petModel(request: FakeRequest) {
  const messages = request.body.messages as Array<{ role: string; content: string | null }>;
  const result = messages.find((message) => message.role === 'tool');
  if (result) return completion(request, { text: `結果: ${result.content}` });
  return completion(request, { toolCall: { name: 'mcp__pets__addPet', arguments: { name: 'ポチ' } } });
}
