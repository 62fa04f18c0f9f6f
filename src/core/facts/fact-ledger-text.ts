import type { Fact, FactKind } from './fact-types';

/**
 * The ledger as text: one section at the end of a summary, grouped by kind, lists joined by
 * commas where items are short (the ledger has to be dense to fit its budget). It is written
 * to be read back: a later compaction that summarizes this summary merges the ledger's
 * facts into its own instead of nesting one ledger inside another.
 */
export const LEDGER_HEADING = '## Fact ledger';

type Layout = 'quoted' | 'bullets' | 'inline';

interface Section {
  title: string;
  kind: FactKind;
  layout: Layout;
  /** Paths are split in two sections by whether the agent wrote them. */
  written?: boolean;
}

const SECTIONS: Section[] = [
  { title: 'Instructions', kind: 'instruction', layout: 'quoted' },
  { title: 'Files written', kind: 'path', layout: 'inline', written: true },
  { title: 'Files read or named', kind: 'path', layout: 'inline', written: false },
  { title: 'Commands', kind: 'command', layout: 'bullets' },
  { title: 'Errors', kind: 'error', layout: 'bullets' },
  { title: 'Numbers', kind: 'number', layout: 'inline' },
  { title: 'Identifiers', kind: 'identifier', layout: 'inline' },
  { title: 'URLs', kind: 'url', layout: 'inline' },
];

export interface LedgerTextOptions {
  /** The first line under the heading (where the facts come from, how to recall the rest). */
  note?: string;
}

export function renderLedger(facts: readonly Fact[], options: LedgerTextOptions = {}): string {
  const parts = [LEDGER_HEADING];
  if (options.note) parts.push(options.note);
  for (const section of SECTIONS) {
    const items = facts.filter(
      (f) =>
        f.kind === section.kind &&
        (section.written === undefined || Boolean(f.written) === section.written),
    );
    if (items.length === 0) continue;
    if (section.layout === 'inline') {
      parts.push(`${section.title}: ${items.map((f) => f.text).join(', ')}`);
    } else if (section.layout === 'quoted') {
      parts.push(`${section.title}:\n${items.map((f) => `> ${f.text}`).join('\n')}`);
    } else {
      parts.push(`${section.title}:\n${items.map((f) => `- ${bullet(f)}`).join('\n')}`);
    }
  }
  return parts.join('\n');
}

function bullet(fact: Fact): string {
  if (fact.kind !== 'command') return fact.text;
  const status = fact.detail ?? (fact.failed ? 'failed' : undefined);
  return `\`${fact.text}\`${status ? ` → ${status}` : ''}`;
}

/**
 * Splits a text into what precedes its ledger and the ledger's facts. A text without a
 * ledger is all body.
 */
export function splitLedger(text: string): { body: string; ledger: Fact[] } {
  const at = ledgerStart(text);
  if (at < 0) return { body: text, ledger: [] };
  return { body: text.slice(0, at).trimEnd(), ledger: parseLedger(text.slice(at)) };
}

function ledgerStart(text: string): number {
  if (text.startsWith(LEDGER_HEADING)) return 0;
  const at = text.indexOf(`\n${LEDGER_HEADING}`);
  return at < 0 ? -1 : at + 1;
}

const BY_TITLE = new Map(SECTIONS.map((s) => [s.title, s]));

/** The facts of a ledger this module rendered. */
export function parseLedger(text: string): Fact[] {
  const facts: Fact[] = [];
  let section: Section | undefined;
  for (const line of text.split('\n').slice(1)) {
    const header = /^([A-Za-z ]+):(?: (.*))?$/.exec(line);
    const known = header ? BY_TITLE.get(header[1]!) : undefined;
    if (known) {
      section = known;
      if (known.layout === 'inline' && header![2]) {
        for (const item of header![2].split(', ')) push(facts, known, item);
      }
      continue;
    }
    if (!section) continue;
    if (section.layout === 'quoted' && line.startsWith('> ')) push(facts, section, line.slice(2));
    else if (section.layout === 'bullets' && line.startsWith('- ')) {
      push(facts, section, line.slice(2));
    } else if (line.startsWith('## ')) break;
  }
  return facts;
}

function push(facts: Fact[], section: Section, raw: string): void {
  let text = raw.trim();
  if (!text) return;
  const fact: Fact = { kind: section.kind, text, mentions: 1, recency: 0 };
  if (section.written) fact.written = true;
  if (section.kind === 'command') {
    const m = /^`(.*)`(?: → (.+))?$/.exec(text);
    if (m) {
      text = m[1]!;
      fact.text = text;
      if (m[2]) {
        fact.failed = m[2] !== 'exit 0';
        if (m[2] !== 'failed') fact.detail = m[2];
      }
    }
  }
  if (section.kind === 'error') fact.failed = true;
  facts.push(fact);
}
