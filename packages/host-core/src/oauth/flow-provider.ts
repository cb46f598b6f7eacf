import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthClientProvider,
  OAuthDiscoveryState,
  OAuthTokens,
} from '@modelcontextprotocol/client';
import { AuthorizationError } from './authorization-error.js';

/** One authorization in progress, stored under its state until the redirect comes back. */
export interface FlowRecord {
  state: string;
  workspace: string;
  user: string;
  server: string;
  redirectUri: string;
  createdAt: number;
  discovery: OAuthDiscoveryState;
  client?: OAuthClientInformationMixed;
  verifier?: string;
  scope?: string;
  /** The sign-in answers a server's 403 `insufficient_scope` (a step-up). */
  stepUp?: boolean;
}

/**
 * The SDK's view of one flow (`auth()` drives discovery, registration, PKCE and the token request
 * through it): its state, client, verifier and discovery live in the flow record.
 */
export function flowProvider(
  flow: FlowRecord,
  options: {
    clientMetadata: OAuthClientMetadata;
    clientMetadataUrl?: string;
    client?: OAuthClientInformationMixed;
    saveClient?: (client: OAuthClientInformationMixed) => Promise<void>;
    saveTokens?: (tokens: OAuthTokens) => void;
    redirect?: (url: URL) => void;
  },
): OAuthClientProvider & { readonly resource: string | undefined } {
  if (options.client && !flow.client) flow.client = options.client;
  return {
    redirectUrl: flow.redirectUri,
    clientMetadata: options.clientMetadata,
    ...(options.clientMetadataUrl ? { clientMetadataUrl: options.clientMetadataUrl } : {}),
    /** The RFC 8707 resource the tokens are for: the protected resource's own identifier. */
    get resource() {
      return flow.discovery.resourceMetadata?.resource;
    },
    state: () => flow.state,
    clientInformation: () => flow.client,
    saveClientInformation: async (client) => {
      flow.client = client;
      await options.saveClient?.(client);
    },
    tokens: () => undefined,
    saveTokens: (tokens) => options.saveTokens?.(tokens),
    redirectToAuthorization: (url) => {
      if (!options.redirect)
        throw new AuthorizationError(flow.server, 'token', 'the authorization server asked to start over');
      options.redirect(url);
    },
    saveCodeVerifier: (verifier) => {
      flow.verifier = verifier;
    },
    codeVerifier: () => {
      if (!flow.verifier)
        throw new AuthorizationError(flow.server, 'token', 'the flow lost its PKCE verifier');
      return flow.verifier;
    },
    discoveryState: () => flow.discovery,
    saveDiscoveryState: (state) => {
      flow.discovery = state;
    },
  };
}
