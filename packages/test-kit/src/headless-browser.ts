/** Options of {@link followAuthorization}. */
export interface FollowAuthorizationOptions {
  /** Who signs in at the authorization server (`x-test-account`, default `user`). */
  account?: string;
  /** Say no at the consent step (`x-test-deny: 1`): the client gets `error=access_denied`. */
  deny?: boolean;
  /** The fetch to browse with (default: the global one). */
  fetch?: typeof fetch;
  /** Also open the client's redirect URI (with the browser's cookies for it) and return what it answered. */
  open?: boolean;
}

/** The client's redirect URI as {@link followAuthorization} opened it. */
export interface OpenedRedirect {
  url: string;
  status: number;
  body: string;
}

const maxHops = 20;

/**
 * A person's browser, headless: opens the authorization URL, keeps cookies per origin and path, sends
 * who the person is (`x-test-account`, `x-test-deny: 1`) to the authorization server and follows its
 * redirects (at most 20) until one leaves the authorization server's origin. That target is the client's
 * redirect URI (`…?code=…&state=…&iss=…`), returned unopened unless `open` is set.
 */
export function followAuthorization(
  authorizationUrl: string,
  options?: FollowAuthorizationOptions & { open?: false },
): Promise<string>;
export function followAuthorization(
  authorizationUrl: string,
  options: FollowAuthorizationOptions & { open: true },
): Promise<OpenedRedirect>;
export async function followAuthorization(
  authorizationUrl: string,
  options: FollowAuthorizationOptions = {},
): Promise<string | OpenedRedirect> {
  const browse = options.fetch ?? fetch;
  const jar = cookieJar();
  const serverOrigin = new URL(authorizationUrl).origin;
  let url = new URL(authorizationUrl);
  for (let hop = 0; hop <= maxHops; hop++) {
    const headers: Record<string, string> = { 'x-test-account': options.account ?? 'user' };
    if (options.deny) headers['x-test-deny'] = '1';
    const cookie = jar.header(url);
    if (cookie) headers.cookie = cookie;
    const response = await browse(url, { redirect: 'manual', headers });
    jar.store(url, response.headers.getSetCookie());
    const location = response.headers.get('location');
    if (response.status < 300 || response.status >= 400 || !location) {
      const body = (await response.text()).slice(0, 500);
      throw new Error(
        `followAuthorization: ${url.origin}${url.pathname} answered HTTP ${response.status} without a redirect ` +
          `(hop ${hop + 1}): ${body || '(empty body)'}`,
      );
    }
    await response.body?.cancel();
    const next = new URL(location, url);
    if (next.origin !== serverOrigin) {
      if (!options.open) return next.toString();
      const cookieForClient = jar.header(next);
      const opened = await browse(next, {
        redirect: 'manual',
        headers: cookieForClient ? { cookie: cookieForClient } : {},
      });
      return { url: next.toString(), status: opened.status, body: await opened.text() };
    }
    url = next;
  }
  throw new Error(
    `followAuthorization: more than ${maxHops} redirects from ${authorizationUrl} without leaving ${serverOrigin}`,
  );
}

/** Cookies per origin and path, as a browser keeps them (expiry by Max-Age or Expires only). */
function cookieJar() {
  const cookies = new Map<string, { origin: string; path: string; name: string; value: string }>();
  return {
    store(url: URL, setCookies: string[]) {
      for (const line of setCookies) {
        const [pair = '', ...attributes] = line.split(';').map((part) => part.trim());
        const at = pair.indexOf('=');
        if (at <= 0) continue;
        const name = pair.slice(0, at);
        const value = pair.slice(at + 1);
        let path = url.pathname.slice(0, Math.max(1, url.pathname.lastIndexOf('/')));
        let expired = false;
        for (const attribute of attributes) {
          const [key = '', attributeValue = ''] = attribute.split('=');
          const lower = key.toLowerCase();
          if (lower === 'path' && attributeValue.startsWith('/')) path = attributeValue;
          if (lower === 'max-age' && Number(attributeValue) <= 0) expired = true;
          if (lower === 'expires' && Date.parse(attributeValue) <= Date.now()) expired = true;
        }
        const key = `${url.origin} ${path} ${name}`;
        if (expired) cookies.delete(key);
        else cookies.set(key, { origin: url.origin, path, name, value });
      }
    },
    header(url: URL) {
      const matching = [...cookies.values()].filter(
        (cookie) =>
          cookie.origin === url.origin &&
          (url.pathname === cookie.path ||
            url.pathname.startsWith(cookie.path.endsWith('/') ? cookie.path : `${cookie.path}/`)),
      );
      return matching.map((cookie) => `${cookie.name}=${cookie.value}`).join('; ');
    },
  };
}
