/**
 * Pure formatting of a task as one self-contained HTML page, one block at a time (the
 * exporter streams blocks; nothing here sees more than one message or record). The page
 * loads nothing: its Content-Security-Policy forbids every request, styles are inline, and
 * folding is `<details>`, so it needs no script. Every string from the task goes through
 * `esc` after the caller's redaction.
 */
import type { MessageRecord, TaskRow } from '../../shared/task-types';
import { REASONING_NAME } from '../import/types';
import { cutIndex } from '../utf16-cut';

/** A message body longer than this is cut on the page (the task's files keep it whole). */
export const MAX_SHOWN_CHARS = 100_000;

export function esc(text: string): string {
  return text
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&#39;');
}

function utc(iso: string | null | undefined): string {
  return iso ? `${iso.slice(0, 10)} ${iso.slice(11, 19)} UTC` : '–';
}

function n(value: number | null | undefined): string {
  return value === null || value === undefined ? '–' : value.toLocaleString('en-US');
}

/** Text as shown: cut past MAX_SHOWN_CHARS with a line that says how much was left out. */
function shown(text: string): string {
  if (text.length <= MAX_SHOWN_CHARS) return esc(text);
  // Never half of a surrogate pair: an emoji cut in two would show as a broken glyph.
  const end = cutIndex(text, MAX_SHOWN_CHARS);
  const rest = text.length - end;
  return `${esc(text.slice(0, end))}<span class="cut">… ${n(rest)} more characters are in the task's files</span>`;
}

const STYLE = `
:root{color-scheme:light dark;--bg:#fbfbfa;--fg:#1d1f23;--muted:#5c6370;--line:#dcdfe4;--card:#fff;
--user:#e8f0fe;--assistant:#fff;--tool:#f4f5f7;--accent:#2458c6;--warn:#fff4d6;--warn-line:#d9a400;
--ok:#e7f6ec;--ok-line:#2f9e57;--compact:#f1e9ff;--compact-line:#7b4fd6}
@media (prefers-color-scheme:dark){:root{--bg:#16181c;--fg:#e3e5e8;--muted:#9aa1ac;--line:#2e3238;
--card:#1d2025;--user:#1d2a40;--assistant:#1d2025;--tool:#202328;--accent:#7ea6ff;--warn:#3a2f10;
--warn-line:#c99a00;--ok:#15301f;--ok-line:#3fb26b;--compact:#2a2140;--compact-line:#a584ff}}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--fg);font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"Noto Sans","Noto Sans CJK JP",sans-serif}
.page{max-width:60rem;margin:0 auto;padding:1rem}
h1{font-size:1.35rem;line-height:1.3;margin:.25rem 0 .75rem;overflow-wrap:anywhere}
dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:.15rem .75rem;margin:0 0 1rem;font-size:.9rem}
dl.facts dt{color:var(--muted)}dl.facts dd{margin:0;overflow-wrap:anywhere}
.note{border-left:4px solid var(--ok-line);background:var(--ok);padding:.5rem .75rem;margin:0 0 1rem;border-radius:4px;font-size:.9rem}
.note.off{border-color:var(--warn-line);background:var(--warn)}
nav.compactions{font-size:.9rem;margin:0 0 1rem}nav.compactions ul{margin:.25rem 0;padding-left:1.25rem}
a{color:var(--accent)}
.msg{background:var(--card);border:1px solid var(--line);border-radius:8px;margin:.6rem 0;padding:.55rem .75rem}
.msg.user{background:var(--user)}.msg.tool{background:var(--tool)}
.msg.history-only{opacity:.92}
.meta{display:flex;flex-wrap:wrap;gap:.25rem .75rem;font-size:.8rem;color:var(--muted);margin-bottom:.25rem}
.meta .role{font-weight:600;color:var(--fg)}
.text{white-space:pre-wrap;overflow-wrap:anywhere}
pre{margin:.35rem 0 0;padding:.5rem;background:var(--bg);border:1px solid var(--line);border-radius:6px;
white-space:pre-wrap;overflow-wrap:anywhere;font:13px/1.45 ui-monospace,SFMono-Regular,Menlo,Consolas,"Noto Sans Mono CJK JP",monospace;max-height:40rem;overflow:auto}
details{margin-top:.35rem}summary{cursor:pointer;font-size:.9rem;overflow-wrap:anywhere}
summary code{font-size:.85rem;color:var(--muted)}
.tool-name{font-weight:600}
.compaction{border:1px solid var(--compact-line);background:var(--compact);border-radius:8px;margin:1rem 0;padding:.55rem .75rem}
.compaction h2{font-size:1rem;margin:0 0 .25rem}
.cut,.bad{display:block;color:var(--muted);font-style:italic}
.bad{border-left:4px solid var(--warn-line);background:var(--warn);padding:.35rem .6rem;margin:.6rem 0}
footer{color:var(--muted);font-size:.8rem;margin:2rem 0 1rem;text-align:center}
:target{outline:2px solid var(--accent);outline-offset:2px}
`;

export function pageStart(title: string): string {
  return [
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    // Nothing may load: no script, no font, no image from anywhere, not even this folder.
    `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'">`,
    '<meta name="referrer" content="no-referrer">',
    '<meta name="generator" content="Context Workbench">',
    `<title>${esc(title)}</title>`,
    `<style>${STYLE.trim()}</style>`,
    '</head>',
    '<body><div class="page">',
    '',
  ].join('\n');
}

export function pageEnd(version: string, exportedAt: string): string {
  return `<footer>Exported by Context Workbench ${esc(version)} on ${utc(exportedAt)}</footer>\n</div></body>\n</html>\n`;
}

export interface HeaderFields {
  title: string;
  row: TaskRow;
  agent: string;
  workdir: string | null;
  view: 'history' | 'current';
}

export function headerBlock({ title, row, agent, workdir, view }: HeaderFields): string {
  const facts: [string, string][] = [
    ['Agent', esc(agent)],
    ['Model', esc(row.model ?? '–')],
    ['Started', utc(row.created_at)],
    ['Ended', utc(row.completed_at)],
  ];
  if (workdir) facts.push(['Folder', `<code>${esc(workdir)}</code>`]);
  facts.push(
    [
      'Messages',
      `${n(row.total_messages)} · ${n(row.tool_call_count)} tool calls · ${n(row.compression_count)} compactions`,
    ],
    [
      'Tokens',
      `${n(row.input_tokens)} in · ${n(row.output_tokens)} out · ${n(row.cache_read_tokens)} cache read · ${n(row.cache_creation_tokens)} cache write`,
    ],
    ['Shown', view === 'history' ? 'the full history' : 'the context the model sees now'],
  );
  const dl = facts.map(([k, v]) => `<dt>${k}</dt><dd>${v}</dd>`).join('');
  return `<header><h1>${esc(title)}</h1><dl class="facts">${dl}</dl></header>\n`;
}

/** What was redacted (or that nothing was, or that the page was not redacted at all). */
export function redactionBlock(redacted: boolean, described: string | null): string {
  if (!redacted)
    return '<aside class="note off" role="note"><strong>Not redacted.</strong> This page was exported with redaction turned off: it may hold API keys, tokens and other secrets.</aside>\n';
  const what = described
    ? `Removed before export: ${esc(described)}. Each is shown as <code>[REDACTED:kind]</code>.`
    : 'No API keys, tokens, private keys or configured secrets were found.';
  return `<aside class="note" role="note"><strong>Redacted.</strong> ${what}</aside>\n`;
}

export interface CompactionMark {
  id: number;
  strategy: string;
  start_seq: number;
  end_seq: number;
  tokens_before: number | null;
  tokens_after: number | null;
  at: string | null;
}

export function compactionIndexBlock(marks: readonly CompactionMark[]): string {
  if (marks.length === 0) return '';
  const items = marks
    .map(
      (m) =>
        `<li><a href="#compaction-${m.id}">Compaction ${m.id}</a>: ${esc(m.strategy)}, messages #${m.start_seq}–#${m.end_seq}${tokensText(m)}</li>`,
    )
    .join('');
  return `<nav class="compactions" aria-label="Compactions"><strong>${marks.length} compaction${marks.length === 1 ? '' : 's'}</strong><ul>${items}</ul></nav>\n`;
}

function tokensText(m: CompactionMark): string {
  if (m.tokens_before === null || m.tokens_after === null) return '';
  return `, ~${n(m.tokens_before)} → ~${n(m.tokens_after)} tokens`;
}

export function compactionBlock(m: CompactionMark, summary: string | null): string {
  const body = summary
    ? `<details><summary>Summary</summary><pre>${shown(summary)}</pre></details>`
    : '';
  return `<section class="compaction" id="compaction-${m.id}"><h2>Compaction ${m.id} · ${esc(m.strategy)}</h2><div class="meta">messages #${m.start_seq}–#${m.end_seq} left the context${tokensText(m)} · ${utc(m.at)}</div>${body}</section>\n`;
}

const ROLE_LABEL: Record<string, string> = {
  system: 'System',
  user: 'User',
  assistant: 'Assistant',
  tool: 'Tool result',
};

function prettyArguments(args: string): string {
  try {
    return JSON.stringify(JSON.parse(args) as unknown, null, 2);
  } catch {
    return args;
  }
}

/** A short line for a folded block: the first non-empty line, cut. */
function preview(text: string, max = 120): string {
  const line = text.split('\n').find((l) => l.trim() !== '') ?? '';
  return line.length > max ? `${line.slice(0, max)}…` : line;
}

function callPreview(args: string): string {
  try {
    const value = JSON.parse(args) as unknown;
    if (value && typeof value === 'object' && !Array.isArray(value)) {
      const first = Object.values(value as Record<string, unknown>).find(
        (v) => typeof v === 'string' && v.trim() !== '',
      );
      if (typeof first === 'string') return preview(first, 100);
    }
  } catch {
    // not JSON: the raw text's first line
  }
  return preview(args, 100);
}

/**
 * One message. `r` redacts a string before it is escaped; the anchor `seq-N` lets a link
 * point at a message. Tool results, reasoning and tool calls are folded.
 */
export function messageBlock(m: MessageRecord, r: (text: string) => string): string {
  const content = r(m.content ?? '');
  const reasoning = m.role === 'assistant' && m.name === REASONING_NAME;
  const classes = ['msg', m.role, m.history_only ? 'history-only' : ''].filter(Boolean).join(' ');
  const label =
    m.kind === 'summary'
      ? 'Compaction summary'
      : m.kind === 'truncation-marker'
        ? 'Truncation marker'
        : m.kind === 'inheritance'
          ? 'Inherited context'
          : reasoning
            ? 'Thinking'
            : (ROLE_LABEL[m.role] ?? m.role);
  const meta = [
    `<span class="role">${esc(label)}${m.role === 'tool' && m.tool_name ? ` · <span class="tool-name">${esc(r(m.tool_name))}</span>` : ''}</span>`,
    `<a href="#seq-${m.seq}">#${m.seq}</a>`,
    `<time datetime="${esc(m.timestamp)}">${utc(m.timestamp)}</time>`,
    `<span>~${n(m.tokens)} tokens</span>`,
  ].join(' ');
  let body = '';
  if (m.role === 'tool' || reasoning) {
    const lines = content === '' ? 0 : content.split('\n').length;
    const what = reasoning ? 'Thinking' : `${n(lines)} line${lines === 1 ? '' : 's'}`;
    body = `<details><summary>${what}${content ? ` · <code>${esc(preview(content))}</code>` : ' · (empty)'}</summary><pre>${shown(content)}</pre></details>`;
  } else if (content.trim() !== '') {
    body = `<div class="text">${shown(content)}</div>`;
  }
  for (const call of m.tool_calls ?? []) {
    const args = r(call.function.arguments);
    body += `<details class="call"><summary>Tool call <span class="tool-name">${esc(r(call.function.name))}</span> <code>${esc(callPreview(args))}</code></summary><pre>${shown(prettyArguments(args))}</pre></details>`;
  }
  return `<article class="${classes}" id="seq-${m.seq}"><div class="meta">${meta}</div>${body}</article>\n`;
}

export function badLineBlock(file: string, lineNo: number, error: string): string {
  return `<p class="bad">${esc(file)} line ${lineNo} could not be read and is left out: ${esc(error)}</p>\n`;
}
