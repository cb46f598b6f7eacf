import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { BlockList, isIP } from 'node:net';
import { Agent } from 'undici';

/**
 * Addresses a page fetch may never reach unless the operator allows them: loopback, private (RFC 1918,
 * CGNAT, ULA), link-local (which holds the cloud metadata address 169.254.169.254), unspecified,
 * multicast, documentation and benchmarking ranges, and IPv4 written inside IPv6: mapped (read as the
 * IPv4 inside), compatible (`::127.0.0.1`) and translated (`::ffff:0:127.0.0.1`).
 */
const forbidden = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  forbidden.addSubnet(network, prefix, 'ipv4');
// ::/96 (IPv4-compatible, with :: and ::1) and ::ffff:0:0:0/96 (IPv4-translated) are refused whole:
// no public page is reached that way, and each hides an IPv4 address in another form.
for (const [network, prefix] of [
  ['::', 96],
  ['::ffff:0:0:0', 96],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
  ['2001:db8::', 32],
  ['64:ff9b::', 96],
] as const)
  forbidden.addSubnet(network, prefix, 'ipv6');

/** The IPv4 address inside an IPv4-mapped IPv6 address (`::ffff:127.0.0.1`), if any. */
function embeddedIpv4(address: string): string | undefined {
  const match = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (match) return match[1];
  const hex = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(address);
  if (!hex) return undefined;
  const high = Number.parseInt(hex[1] as string, 16);
  const low = Number.parseInt(hex[2] as string, 16);
  return [high >> 8, high & 255, low >> 8, low & 255].join('.');
}

/** Whether an IP address is one a fetch must not reach (see {@link forbidden}). */
export function isForbiddenAddress(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, '');
  const family = isIP(bare);
  if (family === 0) return true;
  if (family === 6) {
    const inner = embeddedIpv4(bare);
    if (inner) return forbidden.check(inner, 'ipv4');
    return forbidden.check(bare, 'ipv6');
  }
  return forbidden.check(bare, 'ipv4');
}

/** What the operator allows despite the rules: host names, exact addresses, or CIDR ranges. */
export class Allowlist {
  private readonly hosts = new Set<string>();
  private readonly ranges = new BlockList();

  constructor(entries: string[] = []) {
    for (const entry of entries.map((item) => item.trim().toLowerCase()).filter(Boolean)) {
      const [network, prefix] = entry.split('/');
      const family = isIP(network ?? '');
      if (family && prefix !== undefined)
        this.ranges.addSubnet(network as string, Number(prefix), family === 4 ? 'ipv4' : 'ipv6');
      else if (family) this.ranges.addAddress(entry, family === 4 ? 'ipv4' : 'ipv6');
      else this.hosts.add(entry);
    }
  }

  allowsHost(host: string): boolean {
    return this.hosts.has(host.toLowerCase().replace(/^\[|\]$/g, ''));
  }

  allowsAddress(address: string): boolean {
    const family = isIP(address);
    return family !== 0 && this.ranges.check(address, family === 4 ? 'ipv4' : 'ipv6');
  }
}

/** A refused destination: the message names it and why, never more. */
export class ForbiddenAddressError extends Error {
  override name = 'ForbiddenAddressError';
}

/**
 * An undici dispatcher whose every connection resolves the host itself and refuses when any answer is
 * forbidden (unless allowed): the check happens at connect time, on the address actually dialled, so
 * a DNS answer that changes between a check and the request (rebinding) cannot slip through.
 */
export function guardedAgent(allow: Allowlist, options: { connectTimeoutMs?: number } = {}): Agent {
  return new Agent({
    connect: {
      timeout: options.connectTimeoutMs ?? 10_000,
      lookup(hostname, lookupOptions, callback) {
        const allowedHost = allow.allowsHost(hostname);
        dnsLookup(hostname, { ...lookupOptions, all: true }, (error, addresses) => {
          if (error) return callback(error, '', 0);
          const list = (addresses as unknown as LookupAddress[]) ?? [];
          const refused = list.find(
            (entry) =>
              isForbiddenAddress(entry.address) && !allowedHost && !allow.allowsAddress(entry.address),
          );
          if (refused)
            return callback(
              new ForbiddenAddressError(
                `${hostname} resolves to ${refused.address}, a private, loopback, link-local or metadata address`,
              ),
              '',
              0,
            );
          if (lookupOptions.all) return callback(null, list as never);
          const first = list[0];
          if (!first) return callback(new Error(`${hostname} has no address`), '', 0);
          return callback(null, first.address, first.family);
        });
      },
    },
  });
}

/** Checked before any request: an address literal (or a host) the rules refuse, said plainly. */
export function checkDestination(url: URL, allow: Allowlist): void {
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new ForbiddenAddressError(`only http and https pages can be fetched, not ${url.protocol}`);
  if (url.username || url.password) throw new ForbiddenAddressError('URLs with credentials are not fetched');
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (allow.allowsHost(host)) return;
  if (isIP(host) && isForbiddenAddress(host) && !allow.allowsAddress(host))
    throw new ForbiddenAddressError(`${host} is a private, loopback, link-local or metadata address`);
  if (/^(localhost|.*\.localhost|.*\.local|.*\.internal)$/i.test(host))
    throw new ForbiddenAddressError(`${host} names this machine or a private network`);
}
