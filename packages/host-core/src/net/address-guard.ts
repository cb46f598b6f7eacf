import type { LookupAddress } from 'node:dns';
import type { BlockList } from 'node:net';
import { HostError } from '@ai-assistant/chat-types';
import type { Agent } from 'undici';
import { nodeDns, nodeNet } from '../builtins.js';

/**
 * Where a server a workspace added may not point: loopback, private (RFC 1918, CGNAT, ULA), link-local
 * (which holds the cloud metadata address 169.254.169.254), unspecified, multicast, reserved and
 * documentation ranges, and IPv4 written inside IPv6: mapped (`::ffff:127.0.0.1`, read as the IPv4
 * inside), compatible (`::127.0.0.1`) and translated (`::ffff:0:127.0.0.1`). The web server keeps its own
 * copy of these rules: servers share no code with the host.
 */
let refused: BlockList | undefined;
const refusedRanges = (): BlockList => (refused ??= refusedList());
function refusedList(): BlockList {
  const list = new (nodeNet().BlockList)();
  const v4 =
    '0.0.0.0/8 10.0.0.0/8 100.64.0.0/10 127.0.0.0/8 169.254.0.0/16 172.16.0.0/12 192.0.0.0/24 192.0.2.0/24 192.168.0.0/16 198.18.0.0/15 198.51.100.0/24 203.0.113.0/24 224.0.0.0/4 240.0.0.0/4';
  // ::/96 (IPv4-compatible, with :: and ::1) and ::ffff:0:0:0/96 (IPv4-translated) are refused
  // whole: no public server is reached that way, and each hides an IPv4 address in another form.
  const v6 = '::/96 ::ffff:0:0:0/96 fc00::/7 fe80::/10 ff00::/8 2001:db8::/32 64:ff9b::/96';
  for (const range of v4.split(' ')) {
    const [network, prefix] = range.split('/');
    list.addSubnet(network as string, Number(prefix), 'ipv4');
  }
  for (const range of v6.split(' ')) {
    const [network, prefix] = range.split('/');
    list.addSubnet(network as string, Number(prefix), 'ipv6');
  }
  return list;
}

/** The IPv4 address carried inside an IPv4-mapped IPv6 one (`::ffff:a.b.c.d`), if any. */
function innerIpv4(address: string): string | undefined {
  const dotted = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
  if (dotted) return dotted;
  const hex = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(address);
  if (!hex) return undefined;
  const [high, low] = [Number.parseInt(hex[1] as string, 16), Number.parseInt(hex[2] as string, 16)];
  return `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`;
}

/** Whether an IP address is one a workspace's server may not reach (anything not an IP is refused). */
export function isRefusedAddress(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, '');
  const family = nodeNet().isIP(bare);
  if (family === 0) return true;
  const inner = family === 6 ? innerIpv4(bare) : bare;
  return inner ? refusedRanges().check(inner, 'ipv4') : refusedRanges().check(bare, 'ipv6');
}

/** A destination refused: says which and why, nothing more. */
export class RefusedAddressError extends HostError {
  override name = 'RefusedAddressError';
  constructor(message: string) {
    super('REFUSED_ADDRESS', message);
  }
}

/**
 * What the operator allows despite the rules (`WORKSPACE_SERVERS_ALLOW`): host names, addresses or
 * CIDR ranges, e.g. `mcp.internal.example,10.1.0.0/16`.
 */
export class AddressAllowlist {
  private readonly hosts = new Set<string>();
  private readonly ranges = new (nodeNet().BlockList)();

  constructor(entries: Iterable<string> = []) {
    for (const raw of entries) {
      const entry = raw.trim().toLowerCase();
      if (!entry) continue;
      const [network = '', prefix] = entry.split('/');
      const family = nodeNet().isIP(network);
      const type = family === 4 ? 'ipv4' : 'ipv6';
      if (family && prefix !== undefined) this.ranges.addSubnet(network, Number(prefix), type);
      else if (family) this.ranges.addAddress(network, type);
      else this.hosts.add(entry);
    }
  }

  /** The allowlist of a comma-separated list. */
  static parse(list: string | undefined): AddressAllowlist {
    return new AddressAllowlist((list ?? '').split(','));
  }

  allows(hostOrAddress: string): boolean {
    const bare = hostOrAddress.toLowerCase().replace(/^\[|\]$/g, '');
    const family = nodeNet().isIP(bare);
    if (family === 0) return this.hosts.has(bare);
    return this.hosts.has(bare) || this.ranges.check(bare, family === 4 ? 'ipv4' : 'ipv6');
  }
}

/**
 * Checked before any request: http(s) only, no credentials in the URL, and no address literal or
 * local name the rules refuse. Names are checked again on the address dialled ({@link guardedAgent}).
 */
export function checkAddress(url: URL, allow: AddressAllowlist): void {
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new RefusedAddressError(`only http and https addresses can be added, not ${url.protocol}`);
  if (url.username || url.password)
    throw new RefusedAddressError('an address with a user name or password in it is refused');
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (allow.allows(host)) return;
  if (nodeNet().isIP(host) && isRefusedAddress(host))
    throw new RefusedAddressError(`${host} is a loopback, private, link-local or metadata address`);
  if (/^(localhost|.+\.localhost|.+\.local|.+\.internal)$/i.test(host))
    throw new RefusedAddressError(`${host} names this machine or a private network`);
}

/**
 * An undici dispatcher that resolves each host itself when it connects and refuses when an answer
 * is refused (unless allowed): a name whose DNS answer changes after the first check (rebinding)
 * cannot slip through. undici is loaded only when a workspace server is used.
 */
export function guardedAgent(allow: AddressAllowlist): Promise<Agent> {
  let agent = agents.get(allow);
  if (!agent) {
    agent = newGuardedAgent(allow);
    agents.set(allow, agent);
  }
  return agent;
}

/** One dispatcher per allowlist (the host has one), so connections are pooled as usual. */
const agents = new WeakMap<AddressAllowlist, Promise<Agent>>();

async function newGuardedAgent(allow: AddressAllowlist): Promise<Agent> {
  const { Agent } = await import('undici');
  return new Agent({
    connect: {
      timeout: 10_000,
      lookup(hostname, options, callback) {
        nodeDns().lookup(hostname, { ...options, all: true }, (error, answers) => {
          if (error) return callback(error, '', 0);
          const list = answers as unknown as LookupAddress[];
          const refused = allow.allows(hostname)
            ? undefined
            : list.find((answer) => isRefusedAddress(answer.address) && !allow.allows(answer.address));
          if (refused)
            return callback(
              new RefusedAddressError(
                `${hostname} resolves to ${refused.address}, a loopback, private, link-local or metadata address`,
              ),
              '',
              0,
            );
          if (options.all) return callback(null, list as never);
          const first = list[0];
          if (!first) return callback(new Error(`${hostname} has no address`), '', 0);
          return callback(null, first.address, first.family);
        });
      },
    },
  });
}

/**
 * A fetch for a workspace's server: the address checked first, every connection dialled through
 * {@link guardedAgent}, and redirects followed only within the server's own origin (scheme, host and
 * port), at most {@link maxRedirects}, each hop checked again. A redirect elsewhere is refused, naming
 * the origin it leads to (the admin adds the server there instead): it could lead anywhere, and the
 * request's headers (a workspace secret, a person's token) must not go with it.
 */
export async function guardedFetch(
  allow: AddressAllowlist,
): Promise<(input: string | URL | Request, init?: RequestInit) => Promise<Response>> {
  const [{ fetch: undiciFetch }, dispatcher] = await Promise.all([import('undici'), guardedAgent(allow)]);
  return async (input, init) => {
    const plain = typeof input === 'string' || input instanceof URL;
    let url = new URL(plain ? input : input.url);
    // A Request keeps its method, headers and body (read once, so a redirect can send it again).
    let request = plain ? init : await fromRequest(input, init);
    for (let hop = 0; ; hop++) {
      checkAddress(url, allow);
      const response = await undiciFetch(url, {
        ...(request as object),
        dispatcher,
        redirect: 'manual',
      } as Parameters<typeof undiciFetch>[1]).catch(refusalInside);
      const location = redirects.has(response.status) && response.headers.get('location');
      if (!location) return response as unknown as Response;
      await response.body?.cancel();
      const next = parsedOrUndefined(location, url);
      if (!next)
        throw new RefusedAddressError(
          `${url.host} answered with a redirect to an address that cannot be read`,
        );
      request = redirected(url, next, response.status, request, hop);
      url = next;
    }
  };
}

/**
 * fetch reports a refused dial as "fetch failed" with the refusal as its cause: the refusal itself is
 * thrown, so whoever reads the error (an admin's Test) learns which address was refused.
 */
function refusalInside(error: unknown): never {
  const cause = (error as { cause?: unknown } | undefined)?.cause;
  throw cause instanceof RefusedAddressError ? cause : error;
}

/** A Request as fetch options (its body read once); `init` wins where both say something. */
async function fromRequest(input: Request, init: RequestInit | undefined): Promise<RequestInit> {
  const body = input.method === 'GET' || input.method === 'HEAD' ? undefined : await input.arrayBuffer();
  return {
    method: input.method,
    headers: input.headers,
    signal: input.signal,
    ...(body ? { body } : {}),
    ...init,
  };
}

/** A redirect's `Location` read against the address that sent it; undefined when it cannot be read. */
function parsedOrUndefined(location: string, base: URL): URL | undefined {
  try {
    return new URL(location, base);
  } catch {
    return undefined;
  }
}

/** Redirects a workspace's server may make, one after another. */
export const maxRedirects = 5;

/** The statuses that redirect (as fetch follows them); any other answer is the server's own. */
const redirects = new Set([301, 302, 303, 307, 308]);

/** A body fetch can send again as it is: not a stream, which the first request consumed. */
const replayable = (body: RequestInit['body']) =>
  body === undefined ||
  body === null ||
  typeof body === 'string' ||
  body instanceof URLSearchParams ||
  body instanceof Blob ||
  body instanceof FormData ||
  body instanceof ArrayBuffer ||
  ArrayBuffer.isView(body);

/** The request to send to `next` after a redirect from `from`, or why it is refused. */
function redirected(
  from: URL,
  next: URL,
  status: number,
  request: RequestInit | undefined,
  hop: number,
): RequestInit | undefined {
  // Only the origin is named: a path may hold a key (many hosted servers put theirs there).
  if (next.origin !== from.origin)
    throw new RefusedAddressError(
      `${from.host} answered with a redirect to ${next.origin}; a workspace's server is followed only within its own address (scheme, host and port): add it at its new address on ${next.origin} instead`,
    );
  if (hop >= maxRedirects)
    throw new RefusedAddressError(`${from.host} redirected more than ${maxRedirects} times`);
  const method = (request?.method ?? 'GET').toUpperCase();
  // 307 and 308 keep the method and the body; the others turn a request into a GET, which only a
  // GET or HEAD survives (an MCP message is a POST).
  if (status === 307 || status === 308) {
    if (!replayable(request?.body))
      throw new RefusedAddressError(`${from.host} redirected a request whose body cannot be sent twice`);
    return request;
  }
  if (method === 'GET' || method === 'HEAD') return request;
  throw new RefusedAddressError(
    `${from.host} answered a ${method} with a ${status} redirect to another path, which would drop its body: add the server at its new address instead`,
  );
}

/**
 * `fallback`, or, for a workspace's server (`allow` set), a fetch through the address guard: for OAuth
 * discovery, registration, tokens, refresh and revocation alike, since those addresses come from the
 * server's own metadata.
 */
export function fetchWithin(allow: AddressAllowlist | undefined, fallback: typeof fetch): typeof fetch {
  if (!allow) return fallback;
  return ((input: string | URL | Request, init?: RequestInit) =>
    guardedFetch(allow).then((send) => send(input, init))) as typeof fetch;
}
