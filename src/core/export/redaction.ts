import { MIN_LOGGED_SECRET_LENGTH, secretForms } from '../config/secrets';

/**
 * Redaction of what people paste into sessions before a session leaves the machine: API keys
 * and tokens found by their published shapes, the secrets the workbench's own configuration
 * knows, and optionally the home folder in paths. A replacement names what it replaced
 * (`[REDACTED:github-token]`) so a reader knows something was there; it holds no quote or
 * backslash, so redacting a JSON line's text leaves valid JSON.
 */

export type RedactionKind =
  | 'anthropic-key'
  | 'openai-key'
  | 'google-key'
  | 'github-token'
  | 'aws-key'
  | 'slack-token'
  | 'bearer-token'
  | 'private-key'
  | 'configured-secret'
  | 'home-folder';

/** People's names of the kinds, for the note that says what was redacted. */
export const REDACTION_LABELS: Record<RedactionKind, string> = {
  'anthropic-key': 'Anthropic API key',
  'openai-key': 'OpenAI API key',
  'google-key': 'Google API key',
  'github-token': 'GitHub token',
  'aws-key': 'AWS key',
  'slack-token': 'Slack token',
  'bearer-token': 'bearer token',
  'private-key': 'private key',
  'configured-secret': 'configured secret',
  'home-folder': 'home folder',
};

interface Pattern {
  kind: RedactionKind;
  regex: RegExp;
  /** Text kept in front of the secret (a header or variable name), from capture group 1. */
  keepsPrefix?: boolean;
}

// Order matters: Anthropic keys start with `sk-` too. A key must not be glued to a longer
// identifier (the lookbehinds), so "task-management-…" is not an OpenAI key; the OpenAI
// shape also needs a digit, which kebab-case names rarely have at that length.
const PATTERNS: readonly Pattern[] = [
  {
    kind: 'private-key',
    regex: /-----BEGIN ([A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?)-----[\s\S]*?-----END \1-----/g,
  },
  {
    // A key cut off before its END line (pasted in part): its base64 body up to the first
    // character a key cannot hold.
    kind: 'private-key',
    regex: /-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----(?:\\[nr]|[\s A-Za-z0-9+/=:-])*/g,
  },
  { kind: 'anthropic-key', regex: /(?<![A-Za-z0-9_-])sk-ant-[A-Za-z0-9_-]{20,}/g },
  {
    kind: 'openai-key',
    regex: /(?<![A-Za-z0-9_-])sk-(?:proj-|svcacct-|admin-)?(?=[A-Za-z0-9_-]*\d)[A-Za-z0-9_-]{20,}/g,
  },
  { kind: 'google-key', regex: /(?<![A-Za-z0-9_-])AIza[0-9A-Za-z_-]{35}(?![A-Za-z0-9_-])/g },
  {
    kind: 'github-token',
    regex:
      /(?<![A-Za-z0-9_])(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})(?![A-Za-z0-9_])/g,
  },
  { kind: 'aws-key', regex: /(?<![A-Z0-9])(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}(?![A-Z0-9])/g },
  {
    kind: 'aws-key',
    regex:
      /((?:aws_secret_access_key|AWS_SECRET_ACCESS_KEY|SecretAccessKey)\\?["']?\s*[:=]\s*\\?["']?)[A-Za-z0-9/+=]{40}(?![A-Za-z0-9/+=])/g,
    keepsPrefix: true,
  },
  {
    kind: 'slack-token',
    regex: /(?<![A-Za-z0-9-])(?:xox[abposr]-[A-Za-z0-9-]{10,}|xapp-\d-[A-Za-z0-9-]{10,})/g,
  },
  {
    kind: 'slack-token',
    regex: /https:\/\/hooks\.slack\.com\/services\/[A-Za-z0-9_/]{20,}/g,
  },
  {
    kind: 'bearer-token',
    regex: /(\b[Bb]earer\s+)[A-Za-z0-9._~+/-]{16,}=*/g,
    keepsPrefix: true,
  },
];

/**
 * What a redactor replaced, by kind: in how many places, and how many different secrets
 * those were (a key and the pieces of it found elsewhere are one secret).
 */
export type RedactionCounts = Partial<Record<RedactionKind, { places: number; secrets: number }>>;

export interface RedactionOptions {
  /** Secrets known by value (the configuration's keys, the environment's tokens). */
  secrets?: readonly string[];
  /** Replace home folders in paths with `~`: this machine's and any /home/x, /Users/x, C:\Users\x. */
  homeFolders?: { home: string } | null;
}

/** Home folders as they appear in paths on Linux, macOS and Windows (also JSON-escaped). */
// A path's start only: not "/home/" inside a URL's path (example.com/home/page).
const HOME_PATHS =
  /(?<![\w.~-])(?:\/home\/[A-Za-z0-9._-]+|\/Users\/[A-Za-z0-9._ -]+?(?=\/|\\|$|["'\s])|[A-Za-z]:(?:\\\\|\\)Users(?:\\\\|\\)[A-Za-z0-9._ -]+?(?=\\|$|["'\s]))/g;

/**
 * Pieces of a secret that can turn up alone: the fact ledger lists a key's dash-separated
 * runs as identifiers, people quote half a token. Long runs of letters and digits only.
 */
function fragmentsOf(secret: string): string[] {
  const pieces = new Set([...secret.split('-'), ...secret.split(/[-_.:/+=]/)]);
  return [...pieces].filter(
    (p) => p.length >= 12 && /\d/.test(p) && /[A-Za-z]/.test(p) && p !== secret,
  );
}

/**
 * Replaces secrets in text and counts what it replaced; one per export. What a pattern finds
 * is remembered with its long pieces, so a later mention of the same key in a form no
 * pattern knows (a piece of it in a summary's fact ledger) is replaced too. `learn` reads
 * text ahead of time for that without counting.
 */
export class Redactor {
  private readonly places = new Map<RedactionKind, number>();
  private readonly secrets = new Map<RedactionKind, Set<string>>();
  /** Known secret forms (as is, JSON-escaped, URL-encoded): the kind and the whole secret. */
  private readonly known = new Map<string, { kind: RedactionKind; root: string }>();
  private sorted: string[] | null = null;
  private readonly home: { home: string } | null;

  constructor(options: RedactionOptions = {}) {
    for (const secret of options.secrets ?? []) this.remember(secret, 'configured-secret');
    this.home = options.homeFolders ?? null;
  }

  /** A redactor that knows every secret this one knows and has counted nothing yet. */
  fresh(): Redactor {
    const copy = new Redactor({ homeFolders: this.home });
    for (const [form, known] of this.known) copy.known.set(form, known);
    return copy;
  }

  // Patterns first: a remembered piece of one key must not break the shape of another.
  redact(text: string): string {
    let out = text;
    for (const { kind, regex, keepsPrefix } of PATTERNS) {
      regex.lastIndex = 0;
      if (!regex.test(out)) continue;
      regex.lastIndex = 0;
      out = out.replace(regex, (match: string, prefix: unknown) => {
        const kept = keepsPrefix && typeof prefix === 'string' ? prefix : '';
        const secret = match.slice(kept.length);
        this.remember(secret, kind);
        this.add(kind, 1, secret);
        return `${kept}${marker(kind)}`;
      });
    }
    out = this.replaceKnown(out, true);
    if (this.home) out = this.redactHome(out, this.home.home);
    return out;
  }

  /** Remembers the secrets `text` holds, counting nothing (a first read of what is exported). */
  learn(text: string): void {
    for (const { kind, regex, keepsPrefix } of PATTERNS) {
      regex.lastIndex = 0;
      for (const m of text.matchAll(regex)) {
        const kept = keepsPrefix && typeof m[1] === 'string' ? m[1] : '';
        this.remember(m[0].slice(kept.length), kind);
      }
    }
  }

  /** What was replaced so far. */
  get counts(): RedactionCounts {
    const counts: RedactionCounts = {};
    for (const [kind, places] of this.places)
      counts[kind] = { places, secrets: this.secrets.get(kind)?.size ?? 0 };
    return counts;
  }

  /** How many places were replaced. */
  get total(): number {
    let sum = 0;
    for (const n of this.places.values()) sum += n;
    return sum;
  }

  private remember(secret: string, kind: RedactionKind): void {
    if (secret.length < MIN_LOGGED_SECRET_LENGTH) return;
    for (const value of [secret, ...fragmentsOf(secret)]) {
      for (const form of secretForms([value], MIN_LOGGED_SECRET_LENGTH)) {
        if (this.known.has(form)) continue;
        this.known.set(form, { kind, root: secret });
        this.sorted = null;
      }
    }
  }

  // Longest first, so a whole key goes before one of its pieces could leave the rest behind.
  private replaceKnown(text: string, count = true): string {
    this.sorted ??= [...this.known.keys()].sort((a, b) => b.length - a.length);
    let out = text;
    for (const secret of this.sorted) {
      if (!out.includes(secret)) continue;
      const { kind, root } = this.known.get(secret)!;
      const parts = out.split(secret);
      if (count) this.add(kind, parts.length - 1, root);
      out = parts.join(marker(kind));
    }
    return out;
  }

  private redactHome(text: string, home: string): string {
    let out = text;
    if (home.length > 1 && out.includes(home)) {
      const parts = out.split(home);
      this.add('home-folder', parts.length - 1, home);
      out = parts.join('~');
    }
    return out.replace(HOME_PATHS, (folder: string) => {
      this.add('home-folder', 1, folder);
      return '~';
    });
  }

  private add(kind: RedactionKind, n: number, secret: string): void {
    this.places.set(kind, (this.places.get(kind) ?? 0) + n);
    let seen = this.secrets.get(kind);
    if (!seen) this.secrets.set(kind, (seen = new Set()));
    seen.add(secret);
  }
}

function marker(kind: RedactionKind): string {
  return `[REDACTED:${kind}]`;
}

/**
 * "1 Anthropic API key (in 5 places), 2 bearer tokens" — or null when nothing was replaced.
 */
export function describeRedactions(counts: RedactionCounts): string | null {
  const parts = (Object.keys(REDACTION_LABELS) as RedactionKind[])
    .filter((kind) => (counts[kind]?.places ?? 0) > 0)
    .map((kind) => {
      const { places, secrets } = counts[kind]!;
      if (kind === 'home-folder')
        return `home folders in ${places} place${places === 1 ? '' : 's'}`;
      const label = REDACTION_LABELS[kind];
      const where = places > secrets ? ` (in ${places} places)` : '';
      return `${secrets} ${secrets === 1 ? label : `${label}s`}${where}`;
    });
  return parts.length ? parts.join(', ') : null;
}

/** Adds `from` into `into` (several tasks of one export; a secret in two tasks counts twice). */
export function addRedactionCounts(into: RedactionCounts, from: RedactionCounts): void {
  for (const [kind, c] of Object.entries(from) as [
    RedactionKind,
    { places: number; secrets: number },
  ][]) {
    const had = into[kind] ?? { places: 0, secrets: 0 };
    into[kind] = { places: had.places + c.places, secrets: had.secrets + c.secrets };
  }
}
