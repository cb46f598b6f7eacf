import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Store } from '@ai-assistant/store';

/** What links, sessions and held answers need of a store: sealed records (the store's `sealed`, or memory). */
export type AppViewRecords = Pick<Store['sealed'], 'get' | 'put' | 'delete'> &
  Partial<Pick<Store['sealed'], 'prune'>>;

/** How long a link from the Open button works (once). */
export const linkLifetimeMs = 10 * 60_000;
/** How long a page opened from a link keeps its browser session. */
export const sessionLifetimeMs = 60 * 60_000;

/** What a signed link names: one view, for one person, until a time; `nonce` makes it single-use. */
export interface LinkClaims {
  view: string;
  workspace: string;
  user: string;
  expiresAt: number;
  nonce: string;
}

/** A page's session: the browser that used the link acts as the person it named, for this view only. */
export interface ViewSession {
  key: string;
  view: string;
  workspace: string;
  user: string;
  expiresAt: number;
}

/** Why a link or a page request was refused, in words for the person. */
export type Refusal = { refused: string };

const sha256 = (text: string) => createHash('sha256').update(text).digest('base64url');
const base64url = (text: string) => Buffer.from(text).toString('base64url');
/** The cookie of one page's session (a person may have several pages open). */
export const sessionCookie = (key: string) => `app_view_${key}`;

/**
 * Signed, short-lived, single-use links to a view's page, and the browser sessions they start. The
 * HMAC key is a sealed record of the store (any replica signs and checks); a link is used up in the
 * store when opened, so a forwarded link does nothing, and the session it starts lives in an
 * HttpOnly, SameSite=Strict cookie of the browser that opened it.
 */
export class AppLinks {
  private key: Promise<Buffer> | undefined;

  /**
   * @param again how a person gets a new link, ending each refusal ("Press Open in Slack again for a new one").
   */
  constructor(
    private readonly sealed: AppViewRecords,
    private readonly now: () => Date = () => new Date(),
    private readonly again = 'Ask for a new link',
  ) {}

  /** A link's token for `claims.user` (the person who pressed Open), valid for {@link linkLifetimeMs}. */
  async issue(view: string, person: { workspace: string; user: string }): Promise<string> {
    const claims: LinkClaims = {
      view,
      ...person,
      expiresAt: this.now().getTime() + linkLifetimeMs,
      nonce: randomBytes(16).toString('base64url'),
    };
    await this.sealed.put(
      'app-link',
      claims.nonce,
      { workspace: person.workspace },
      String(claims.expiresAt),
    );
    const payload = base64url(JSON.stringify(claims));
    return `${payload}.${await this.sign(payload)}`;
  }

  /**
   * Opens a link: its signature, its time, then its single use (of two opens, only the one that takes
   * it from the store goes on). Returns the new session and the secret for its cookie.
   */
  async open(token: string): Promise<{ session: ViewSession; secret: string } | Refusal> {
    const [payload, signature, extra] = token.split('.');
    if (!payload || !signature || extra !== undefined || token.length > 2000)
      return { refused: 'This link is not a link of the assistant (it was cut or changed).' };
    if (!(await this.verify(payload, signature)))
      return { refused: 'This link was changed after the assistant made it, so it is refused.' };
    let claims: LinkClaims;
    try {
      claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as LinkClaims;
    } catch {
      return { refused: 'This link is not a link of the assistant.' };
    }
    if (claims.expiresAt <= this.now().getTime())
      return { refused: `This link has expired (links work for 10 minutes). ${this.again}.` };
    if (!(await this.sealed.delete('app-link', claims.nonce)))
      return {
        refused: `This link was already used. A link opens once, in one browser: ${this.again}.`,
      };
    const secret = randomBytes(32).toString('base64url');
    const session: ViewSession = {
      key: sha256(secret).slice(0, 22),
      view: claims.view,
      workspace: claims.workspace,
      user: claims.user,
      expiresAt: this.now().getTime() + sessionLifetimeMs,
    };
    await this.sealed.put(
      'app-session',
      sha256(secret),
      { workspace: claims.workspace },
      JSON.stringify(session),
    );
    return { session, secret };
  }

  /** The session of a page request: its key (in the path) and the cookie of that key; else why not. */
  async session(request: IncomingMessage, key: string): Promise<ViewSession | Refusal> {
    const secret = cookie(request.headers.cookie, sessionCookie(key));
    if (!secret || secret.length > 100 || sha256(secret).slice(0, 22) !== key)
      return {
        refused: `This page belongs to the browser that opened its link. ${this.again}.`,
      };
    const raw = await this.sealed.get('app-session', sha256(secret));
    const session = raw ? (JSON.parse(raw) as ViewSession) : undefined;
    if (!session || session.expiresAt <= this.now().getTime())
      return { refused: `This page has expired. ${this.again}.` };
    return session;
  }

  private async sign(payload: string): Promise<string> {
    return createHmac('sha256', await this.secretKey())
      .update(payload)
      .digest('base64url');
  }

  private async verify(payload: string, signature: string): Promise<boolean> {
    const expected = Buffer.from(await this.sign(payload));
    const given = Buffer.from(signature);
    if (expected.length === given.length && timingSafeEqual(expected, given)) return true;
    // Another replica may have stored the key first: read it again once.
    this.key = undefined;
    const again = Buffer.from(await this.sign(payload));
    return again.length === given.length && timingSafeEqual(again, given);
  }

  /** The HMAC key: a sealed record, made by the first replica that needs it. */
  private secretKey(): Promise<Buffer> {
    this.key ??= (async () => {
      const stored = await this.sealed.get('app-link-key', 'v1');
      if (stored) return Buffer.from(stored, 'base64');
      await this.sealed.put('app-link-key', 'v1', {}, randomBytes(32).toString('base64'));
      return Buffer.from((await this.sealed.get('app-link-key', 'v1')) as string, 'base64');
    })().catch((error: unknown) => {
      this.key = undefined;
      throw error;
    });
    return this.key;
  }
}

/** Whether a value is a refusal. */
export const isRefusal = (value: object): value is Refusal => 'refused' in value;

/** One cookie of a Cookie header. */
export function cookie(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const at = part.indexOf('=');
    if (at > 0 && part.slice(0, at).trim() === name) return part.slice(at + 1).trim();
  }
  return undefined;
}
