import { HostError } from '@ai-assistant/chat-types';

/**
 * Connecting a server with OAuth failed: names the server and the step (discovery, registration, the
 * authorization request, the redirect, the token request, a refresh), never a token.
 */
export class AuthorizationError extends HostError {
  override name = 'AuthorizationError';
  /** The person has to connect again (their tokens are gone or refused). */
  readonly reconnect: boolean;
  /** Nothing is wrong with the person's connection: the same request may work in a moment (an outage). */
  readonly retryable: boolean;

  constructor(
    readonly server: string | undefined,
    readonly step: string,
    detail: string,
    options?: { cause?: unknown; reconnect?: boolean; retryable?: boolean },
  ) {
    super(
      'AUTHORIZATION_FAILED',
      `${server ? `connecting "${server}"` : 'connecting a server'} failed at the ${step}: ${detail}`,
      options?.cause === undefined ? undefined : { cause: options.cause },
    );
    this.reconnect = options?.reconnect ?? false;
    this.retryable = options?.retryable ?? false;
  }
}

/** The RFC 6749 §5.2 error code an authorization server answered with (the SDK's `OAuthError.code`). */
export function oauthErrorCode(error: unknown): string | undefined {
  if (!(error instanceof Error) || error.name !== 'OAuthError') return undefined;
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' ? code : undefined;
}

/** One line about an SDK, network or OAuth error (its OAuth error code where it has one). */
export function describeOAuthError(error: unknown): string {
  if (!(error instanceof Error)) return String(error).slice(0, 300);
  const code = oauthErrorCode(error);
  const cause = (error as { cause?: unknown }).cause;
  const network = cause instanceof Error && /fetch failed/i.test(error.message) ? ` (${cause.message})` : '';
  return `${typeof code === 'string' ? `${code}: ` : ''}${error.message}${network}`
    .replace(/\s+/g, ' ')
    .slice(0, 300);
}
