import os from 'node:os';

const LOOPBACK_NAMES = ['127.0.0.1', 'localhost', '[::1]'];

export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || host === '[::1]' || /^127\./.test(host);
}

/** How an address appears in a Host header: IPv6 in brackets. */
function hostLiteral(address: string): string {
  return address.includes(':') && !address.startsWith('[') ? `[${address}]` : address;
}

/**
 * The Host header values this server answers to, `name:port`. A DNS-rebinding attack
 * reaches the server under the attacker's own host name, so any other value is refused.
 * Bound to every interface, the machine's own addresses and name are accepted too.
 */
export function allowedHostHeaders(boundHost: string, port: number): Set<string> {
  const names = new Set<string>(LOOPBACK_NAMES);
  if (boundHost === '0.0.0.0' || boundHost === '::') {
    names.add(os.hostname().toLowerCase());
    for (const list of Object.values(os.networkInterfaces())) {
      for (const info of list ?? []) names.add(hostLiteral(info.address));
    }
  } else {
    names.add(hostLiteral(boundHost.toLowerCase()));
  }
  return new Set([...names].map((name) => `${name}:${port}`));
}
