import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import * as tar from 'tar';

/**
 * A tiny npm registry on 127.0.0.1 for installing a packed tarball without the network: it
 * serves the packages installed in a node_modules tree as the registry does (a packument per
 * name, `GET /<name>`, whose versions point at tarballs `GET /<name>/-/<file>.tgz`), and
 * native prebuilds under `/prebuilt/` for prebuild-install's documented mirror setting
 * (`npm_config_<package>_binary_host`). npm resolves, fetches, checks integrity and runs
 * install scripts exactly as against registry.npmjs.org.
 */

export interface RegistryPackage {
  name: string;
  version: string;
  /** The installed folder (its package.json is the version's manifest). */
  dir: string;
}

export interface LocalRegistry {
  url: string;
  /** Paths asked for, in order. */
  requests: string[];
  close(): Promise<void>;
}

type Manifest = Record<string, unknown> & {
  name: string;
  version: string;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
};

function manifestOf(dir: string): Manifest {
  return JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')) as Manifest;
}

/** The folder node would load `name` from when required from inside `from`. */
function resolveFrom(name: string, from: string, root: string): string | undefined {
  for (let dir = from; dir.startsWith(root); dir = path.dirname(dir)) {
    const candidate = path.join(dir, 'node_modules', name);
    if (fs.existsSync(path.join(candidate, 'package.json'))) return candidate;
    if (path.dirname(dir) === dir) break;
  }
  return undefined;
}

/**
 * Every package installing `root`'s dependencies brings in: dependencies, optional ones
 * that are installed, and the peers npm installs by itself (not the optional ones).
 */
export function runtimeClosure(root: string): RegistryPackage[] {
  const found = new Map<string, RegistryPackage>();
  const visit = (dir: string): void => {
    const m = manifestOf(dir);
    const key = `${m.name}@${m.version}`;
    if (found.has(key)) return;
    found.set(key, { name: m.name, version: m.version, dir });
    const optionalPeers = m.peerDependenciesMeta ?? {};
    const names = [
      ...Object.keys(m.dependencies ?? {}),
      ...Object.keys(m.optionalDependencies ?? {}),
      ...Object.keys(m.peerDependencies ?? {}).filter((n) => !optionalPeers[n]?.optional),
    ];
    for (const name of names) {
      const at = resolveFrom(name, dir, root);
      if (at) visit(at);
      else if (!m.optionalDependencies?.[name]) {
        throw new Error(`${m.name} needs ${name}, which is not installed under ${root}`);
      }
    }
  };
  for (const name of Object.keys(manifestOf(root).dependencies ?? {})) {
    const at = resolveFrom(name, root, root);
    if (!at) throw new Error(`${name} is not installed under ${root}: run npm install`);
    visit(at);
  }
  return [...found.values()];
}

/**
 * The package's folder as the registry's tarball holds it (`package/…`): its own nested
 * node_modules are other packages, and a native package's build/ is what its install
 * script makes.
 */
async function packFolder(pkg: RegistryPackage, file: string): Promise<void> {
  const native = fs.existsSync(path.join(pkg.dir, 'binding.gyp'));
  const entries = fs
    .readdirSync(pkg.dir)
    .filter((e) => e !== 'node_modules' && !(native && e === 'build'));
  await tar.create(
    {
      gzip: true,
      file,
      cwd: pkg.dir,
      prefix: 'package',
      portable: true,
      filter: (p) => !/(^|[/\\])node_modules([/\\]|$)/.test(p),
    },
    entries,
  );
}

/** A prebuild-install tarball of a native package's built binary (build/Release/*.node). */
export async function packPrebuilt(dir: string, file: string): Promise<void> {
  const release = path.join(dir, 'build', 'Release');
  const binaries = fs.readdirSync(release).filter((f) => f.endsWith('.node'));
  const [main] = binaries.filter((f) => !f.startsWith('test_'));
  if (!main) throw new Error(`no built binary in ${release}`);
  await tar.create({ gzip: true, file, cwd: dir, portable: true }, [`build/Release/${main}`]);
}

function integrity(bytes: Buffer): { integrity: string; shasum: string } {
  return {
    integrity: `sha512-${crypto.createHash('sha512').update(bytes).digest('base64')}`,
    shasum: crypto.createHash('sha1').update(bytes).digest('hex'),
  };
}

/**
 * Packs `packages` into `dir` and serves them; `prebuilt` is served for any file asked for
 * under /prebuilt/ (prebuild-install names it after the package, version, ABI and platform).
 */
export async function startLocalRegistry(
  packages: readonly RegistryPackage[],
  dir: string,
  prebuilt?: string,
): Promise<LocalRegistry> {
  const tarballs = new Map<string, string>();
  const byName = new Map<string, RegistryPackage[]>();
  for (const pkg of packages) {
    const file = `${pkg.name.replace('/', '-')}-${pkg.version}.tgz`;
    await packFolder(pkg, path.join(dir, file));
    tarballs.set(`/${pkg.name}/-/${file}`, path.join(dir, file));
    byName.set(pkg.name, [...(byName.get(pkg.name) ?? []), pkg]);
  }
  const requests: string[] = [];
  let base = '';
  const packument = (name: string): string => {
    const versions: Record<string, unknown> = {};
    for (const pkg of byName.get(name)!) {
      const file = `/${name}/-/${name.replace('/', '-')}-${pkg.version}.tgz`;
      const bytes = fs.readFileSync(tarballs.get(file)!);
      versions[pkg.version] = {
        ...manifestOf(pkg.dir),
        _id: `${name}@${pkg.version}`,
        dist: { tarball: `${base}${file}`, ...integrity(bytes) },
      };
    }
    const latest = byName
      .get(name)!
      .map((p) => p.version)
      .at(-1)!;
    return JSON.stringify({ name, 'dist-tags': { latest }, versions });
  };
  const server = http.createServer((req, res) => {
    const url = decodeURIComponent((req.url ?? '/').split('?')[0]!);
    requests.push(url);
    const tarball = tarballs.get(url);
    if (tarball || (prebuilt && url.startsWith('/prebuilt/'))) {
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      fs.createReadStream(tarball ?? prebuilt!).pipe(res);
      return;
    }
    const name = url.slice(1);
    if (byName.has(name)) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(packument(name));
      return;
    }
    res.writeHead(404, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ error: 'Not found' }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: base,
    requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
