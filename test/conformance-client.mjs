// The client the MCP conformance suite drives (client mode): host-core's own McpClientManager and
// the assistant's People, as the apps use them. The suite gives the server's URL as the last argument, the scenario in
// MCP_CONFORMANCE_SCENARIO and, for some, credentials in MCP_CONFORMANCE_CONTEXT. This client connects,
// lists the tools, calls each with arguments made from its schema, and answers any elicitation by
// accepting (the client applies the schema's defaults).
//
// Authorization scenarios (auth/*) go through host-core's public OAuth API as a program without a
// browser would: People.beginConnect gives the authorization URL, a fetch that does not follow
// redirects stands in for the person's browser (the suite's authorization server approves at once),
// and People.completeConnect takes the redirect back. client_credentials scenarios are a shared
// connection with the operator's client in the config.
import { People } from '../packages/assistant/dist/index.js';
import { McpClientManager, memoryOAuthStore, oauthStoreOver } from '../packages/host-core/dist/index.js';

const url = process.argv.at(-1);
// biome-ignore lint/suspicious/noUndeclaredEnvVars: set by the conformance suite for this program, not by turbo
const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? '';
// biome-ignore lint/suspicious/noUndeclaredEnvVars: set by the conformance suite for this program, not by turbo
const context = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT ?? '{}');
const base = { name: 'conformance', transport: 'http', url, headers: {}, timeoutMs: 20_000, disabled: false };

/**
 * A value for each required property (numbers 1, 2, 3…, strings, booleans), and for each optional
 * string, one that is not plain ASCII (what the 2026 revision's Mcp-Param-* headers must encode). A
 * required object that asks for "the inputSchema the client observed for <tool>" gets that tool's
 * schema as host-core lists it (the suite checks what a host keeps of a JSON Schema 2020-12 schema).
 */
function argumentsFor(schema, tools) {
  const args = {};
  let next = 1;
  for (const [name, property] of Object.entries(schema?.properties ?? {})) {
    const type = property?.type;
    if (!(schema.required ?? []).includes(name)) {
      if (type === 'string') args[name] = `値 ${next++}`;
      continue;
    }
    const observed = /inputSchema the client observed for (\S+?),/.exec(property?.description ?? '')?.[1];
    const echoed = observed && tools.find((tool) => tool.name.endsWith(`__${observed}`));
    args[name] = echoed
      ? echoed.inputSchema
      : type === 'number' || type === 'integer'
        ? next++
        : type === 'boolean'
          ? true
          : type === 'object'
            ? {}
            : `value ${next++}`;
  }
  return args;
}

/** Calls every tool of a view; returns the calls that need the person to connect (again). */
async function callEach(view) {
  const refused = [];
  const tools = view.listTools();
  for (const tool of tools) {
    try {
      const outcome = await view.callTool(tool.name, argumentsFor(tool.inputSchema, tools), {
        elicit: async () => ({ action: 'accept', content: {} }),
        requester: 'conformance',
      });
      process.stdout.write(
        `${tool.name}: ${outcome.isError ? 'error' : 'ok'} ${outcome.text.slice(0, 200)}\n`,
      );
    } catch (error) {
      if (error?.code !== 'MISSING_CREDENTIALS') throw error;
      process.stdout.write(`${tool.name}: ${error.message}\n`);
      refused.push(tool.name);
    }
  }
  return refused;
}

/** The person's browser: opens the authorization URL and returns where it is sent back (not followed). */
async function authorize(authorizationUrl) {
  const response = await fetch(authorizationUrl, { redirect: 'manual' });
  const location = response.headers.get('location');
  if (!location) throw new Error(`the authorization server did not redirect (HTTP ${response.status})`);
  return new URL(location, authorizationUrl).toString();
}

/** A store of people's credentials and workspace settings, in memory. */
function memoryPeopleStore() {
  const secrets = new Map();
  const key = (workspace, user) => `${workspace}\u0000${user}`;
  return {
    oauth: memoryOAuthStore(),
    credentials: {
      of: async (workspace, user) => ({ secrets: { ...(secrets.get(key(workspace, user)) ?? {}) } }),
      list: async (workspace, user) =>
        Object.keys(secrets.get(key(workspace, user)) ?? {}).map((server) => ({ server })),
      put: async (workspace, user, server, secret) => {
        secrets.set(key(workspace, user), { ...(secrets.get(key(workspace, user)) ?? {}), [server]: secret });
      },
      delete: async (workspace, user, server) => {
        const mine = secrets.get(key(workspace, user)) ?? {};
        const had = server in mine;
        delete mine[server];
        return had;
      },
    },
    workspaces: { settings: async () => new Map(), setEnabled: async () => {} },
  };
}

async function personFlow() {
  const store = memoryPeopleStore();
  const manager = new McpClientManager({
    connectTimeoutMs: 10_000,
    oauth: {
      // Grants are the person's credentials, as in the apps (startPeople does the same).
      store: oauthStoreOver(store.credentials, store.oauth),
      redirectUrl: 'http://localhost:3000/callback',
      clientMetadataUrl: 'https://conformance-test.local/client-metadata.json',
      clientName: 'ai-assistant conformance',
    },
  });
  const oauth =
    context.client_id && scenario === 'auth/pre-registration'
      ? { grant: 'authorization_code', clientId: context.client_id, clientSecret: context.client_secret }
      : { grant: 'authorization_code' };
  await manager.connect([{ ...base, oauth, personalCredential: true, connection: 'per_user' }]);
  const people = new People(manager, store);
  const person = { workspace: 'conformance', user: 'tester' };
  try {
    // Connect, call; connect again whenever the connection fails or a call is refused, as a person
    // offered Connect again would. Only the host may end this: a server asking for more access each
    // time (step-up) must be stopped by the host's own limit, never by this program's patience.
    for (let attempt = 0; attempt < 10; attempt++) {
      let authorizationUrl;
      try {
        ({ url: authorizationUrl } = await people.beginConnect(person, 'conformance'));
      } catch (error) {
        if (error?.step === 'scope') throw new Error(`stopped by the host: ${error.message}`);
        throw error;
      }
      await people.completeConnect(await authorize(authorizationUrl));
      const view = await people.viewFor(person);
      // A connection that failed offers no tools; the view's instructions say why (for the model).
      if (view.listTools().length === 0) {
        process.stdout.write(`no tools: ${view.systemInstructions().join(' ').slice(0, 300)}\n`);
        continue;
      }
      const refused = await callEach(view);
      if (refused.length === 0) return;
    }
    throw new Error('the host kept asking the person to connect again (10 times)');
  } finally {
    await people.close();
  }
}

async function sharedFlow() {
  const manager = new McpClientManager({ connectTimeoutMs: 10_000 });
  const oauth =
    scenario === 'auth/client-credentials-jwt'
      ? {
          grant: 'client_credentials',
          clientId: context.client_id,
          privateKey: context.private_key_pem,
          // Unset, the host picks the algorithm from the key and the authorization server's metadata.
          ...(context.signing_algorithm ? { signingAlgorithm: context.signing_algorithm } : {}),
        }
      : scenario === 'auth/client-credentials-basic'
        ? { grant: 'client_credentials', clientId: context.client_id, clientSecret: context.client_secret }
        : undefined;
  try {
    await manager.connect([{ ...base, ...(oauth ? { oauth } : {}) }]);
    const [status] = manager.status();
    if (status?.state !== 'connected') throw new Error(`not connected: ${status?.reason ?? status?.state}`);
    await callEach(manager);
  } finally {
    await manager.close();
  }
}

if (scenario.startsWith('auth/') && !scenario.startsWith('auth/client-credentials')) await personFlow();
else await sharedFlow();
