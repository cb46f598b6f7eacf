/**
 * A person's browser, headless: opens the authorization URL, keeps the authorization server's
 * cookies, sends who the person is (`x-test-account`, or `x-test-deny: 1`) and follows its redirects
 * until one leaves the authorization server (the app's redirect URI), which it returns unopened.
 */
export async function followAuthorization(
  authorizationUrl: string,
  options: { account?: string; deny?: boolean } = {},
): Promise<string> {
  const start = new URL(authorizationUrl);
  const cookies = new Map<string, string>();
  let url = start;
  for (let hop = 0; hop < 20; hop++) {
    const response = await fetch(url, {
      redirect: 'manual',
      headers: {
        ...(cookies.size > 0
          ? { cookie: [...cookies].map(([name, value]) => `${name}=${value}`).join('; ') }
          : {}),
        'x-test-account': options.account ?? 'user',
        ...(options.deny ? { 'x-test-deny': '1' } : {}),
      },
    });
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const at = pair?.indexOf('=') ?? -1;
      if (pair && at > 0) cookies.set(pair.slice(0, at).trim(), pair.slice(at + 1).trim());
    }
    await response.body?.cancel();
    const location = response.headers.get('location');
    if (!location)
      throw new Error(`the authorization server stopped at HTTP ${response.status} (${url.pathname})`);
    const next = new URL(location, url);
    if (next.origin !== start.origin) return next.toString();
    url = next;
  }
  throw new Error('too many redirects');
}
