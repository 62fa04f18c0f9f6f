import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Page } from 'playwright-core';
import { REPO_ROOT } from './run-ts';

/**
 * What a person would call broken on a screen, found in the page as it is drawn:
 * - `clipped`: text cut by a box that hides its overflow, unless the cut ends in an ellipsis
 *   and the whole text is in a title (or the box scrolls); text past the window's edge; the
 *   label of a button, tab, chip or heading broken over lines.
 * - `overlapping`: controls and labels of a header, toolbar, filter bar or dialog footer
 *   whose boxes overlap.
 * - `wrongLanguage`: text of the other UI language's string tables (outside what users and
 *   agents wrote: titles, messages, facts), and in the English UI any Japanese text there.
 */
export interface ScreenProblems {
  clipped: string[];
  overlapping: string[];
  wrongLanguage: string[];
}

/** What users and agents wrote: its language is theirs, and it may be long. */
const USER_CONTENT = [
  '.cell-title',
  '.cell-repo',
  '.cell-model',
  '.tv-header h2',
  '.tv-title',
  '.tv-slot',
  '.ctx-preview',
  '.tv-row',
  '.tv-text',
  '.tv-output',
  '.tv-diff',
  '.tv-snippet',
  '.msg-group-title',
  '.msg-repo',
  '.msg-tool',
  '.usage-legend-name',
  '.usage-top-title',
  '.usage-model',
  '.cmp-lost-text',
  '.cmp-column',
  '.cmp-msg',
  'pre',
  'code',
  'textarea',
  // Each language's name in its own words: the way back for whoever cannot read the other.
  '[data-name="language"]',
].join(', ');

/** Containers whose controls must never overlap one another. */
const CONTROL_ROWS = [
  '.app-header',
  '.panel-head',
  '.task-filters',
  '.tv-header',
  '.tv-stats',
  '.tv-tabs',
  '.tv-toolbar',
  '.tv-chart-head',
  '.msg-group-head',
  '.usage-head',
  '.usage-figures',
  '.usage-legend',
  'dialog[open] form > footer',
  'dialog[open] .modal-footer',
  'dialog[open] header',
].join(', ');

interface Foreign {
  text?: string;
  pattern?: string;
}

let tables: Promise<Record<'en' | 'ja', Foreign[]>> | undefined;

/**
 * The strings that belong to one language only (where English and Japanese differ), from
 * every strings table of the renderer: exact texts, and patterns for texts with {values}.
 */
function foreignStrings(): Promise<Record<'en' | 'ja', Foreign[]>> {
  tables ??= (async () => {
    const files: string[] = [];
    const visit = (dir: string): void => {
      for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
        const full = path.join(dir, entry.name);
        if (entry.isDirectory()) visit(full);
        else if (/strings\.ts$/.test(entry.name)) files.push(full);
      }
    };
    visit(path.join(REPO_ROOT, 'src', 'renderer', 'src'));
    const out: Record<'en' | 'ja', Foreign[]> = { en: [], ja: [] };
    for (const file of files) {
      const mod = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
      for (const table of Object.values(mod)) {
        if (!isTable(table)) continue;
        for (const key of Object.keys(table.en)) {
          const en = forms(table.en[key]);
          const ja = forms(table.ja[key]);
          for (const [lang, mine, other] of [
            ['en', en, ja],
            ['ja', ja, en],
          ] as const) {
            for (const text of mine) if (!other.includes(text)) out[lang].push(asForeign(text));
          }
        }
      }
    }
    return out;
  })();
  return tables;
}

type Entry = string | { forms: Record<string, string> };
function isTable(v: unknown): v is Record<'en' | 'ja', Record<string, Entry>> {
  return typeof v === 'object' && v !== null && 'en' in v && 'ja' in v;
}
function forms(entry: Entry | undefined): string[] {
  if (entry === undefined) return [];
  return typeof entry === 'string' ? [entry] : Object.values(entry.forms);
}
function asForeign(text: string): Foreign {
  if (!/\{\w+\}/.test(text)) return { text: text.trim() };
  const parts = text.trim().split(/\{\w+\}/);
  return { pattern: `^${parts.map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('.+?')}$` };
}

/** Looks at the screen as it is now, in `language` (the UI's language). */
export async function screenProblems(page: Page, language: 'en' | 'ja'): Promise<ScreenProblems> {
  const foreign = (await foreignStrings())[language === 'en' ? 'ja' : 'en'];
  const args = { language, foreign, userContent: USER_CONTENT, controlRows: CONTROL_ROWS };
  return page.evaluate(`(${IN_PAGE})(${JSON.stringify(args)})`);
}

/** Runs in the page (tests are typed without the DOM, so it is kept as source). */
const IN_PAGE = String.raw`({ language, foreign, userContent, controlRows }) => {
  const problems = { clipped: [], overlapping: [], wrongLanguage: [] };
  const shown = (el) => {
    const r = el.getBoundingClientRect();
    if (r.width < 1 || r.height < 1) return false;
    for (let e = el; e; e = e.parentElement) {
      const cs = getComputedStyle(e);
      if (cs.visibility === 'hidden' || cs.display === 'none' || cs.opacity === '0') return false;
    }
    return r.bottom > 0 && r.right > 0 && r.top < innerHeight && r.left < innerWidth;
  };
  const describe = (el, text) => {
    const cls = typeof el.className === 'string' && el.className.trim()
      ? '.' + el.className.trim().split(/\s+/).join('.') : '';
    return el.tagName.toLowerCase() + cls + (text ? ' "' + text.slice(0, 60) + '"' : '');
  };
  // A modal dialog covers the page: only it is on screen for the reader.
  const scope = document.querySelector('dialog[open]') || document.body;

  const pageWidth = document.documentElement.scrollWidth;
  if (pageWidth > innerWidth + 1)
    problems.clipped.push('the page is wider than the window (' + pageWidth + ' > ' + innerWidth + ')');

  // Boxes that hide part of the screen's width behind a sideways scroll (code may scroll).
  for (const el of scope.querySelectorAll('*')) {
    const cs = getComputedStyle(el);
    if (!/auto|scroll/.test(cs.overflowX) || el.scrollWidth <= el.clientWidth + 1) continue;
    if (!shown(el) || el.closest(userContent)) continue;
    problems.clipped.push(describe(el, '') + ' scrolls sideways (' + el.scrollWidth + ' > ' + el.clientWidth + ')');
  }

  // Text cut off: each text node's box against every ancestor that hides overflow.
  const walker = document.createTreeWalker(scope, NodeFilter.SHOW_TEXT);
  const range = document.createRange();
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const text = (node.textContent || '').trim();
    const holder = node.parentElement;
    if (!text || !holder || !shown(holder) || holder.closest('option, script, style, svg')) continue;
    range.selectNodeContents(node);
    const box = range.getBoundingClientRect();
    if (box.width < 1 || box.height < 1) continue;
    for (let a = holder; a && a !== document.documentElement; a = a.parentElement) {
      const cs = getComputedStyle(a);
      const hidesX = cs.overflowX !== 'visible';
      const hidesY = cs.overflowY !== 'visible';
      if (!hidesX && !hidesY) continue;
      const r = a.getBoundingClientRect();
      const cutX = hidesX && (box.right > r.right + 1 || box.left < r.left - 1);
      const cutY = hidesY && (box.bottom > r.bottom + 1 || box.top < r.top - 1);
      if (!cutX && !cutY) continue;
      if (/auto|scroll/.test(cs.overflowX + cs.overflowY)) break; // it scrolls into view
      const ellipsis = cs.textOverflow === 'ellipsis' || getComputedStyle(holder).textOverflow === 'ellipsis';
      const titled = holder.closest('[title]');
      const whole = titled && (titled.getAttribute('title') || '').includes(text.slice(0, 20));
      if (cutX && !cutY && ellipsis && whole) break;
      problems.clipped.push(describe(holder, text) + ' cut by ' + describe(a, '') +
        (cutX && ellipsis ? ' (an ellipsis, but no title with the whole text)' : ''));
      break;
    }
  }

  // Labels of controls and headings broken over lines (a word cut in two, "タス / ク").
  const oneLine = 'button, h1, h2, .chip, .panel-count, .key-hint, .tab, [role="tab"], label > span:first-child, th';
  for (const el of scope.querySelectorAll(oneLine)) {
    if (!shown(el) || el.closest(userContent)) continue;
    const text = (el.textContent || '').trim();
    if (!text) continue;
    // The lines its words sit on: text boxes whose middles are more than half a line apart.
    const boxes = [];
    const inner = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
    for (let t = inner.nextNode(); t; t = inner.nextNode()) {
      if (!(t.textContent || '').trim()) continue;
      range.selectNodeContents(t);
      for (const r of range.getClientRects()) if (r.width > 0 && r.height > 0) boxes.push(r);
    }
    const lines = [];
    for (const r of boxes) {
      const mid = (r.top + r.bottom) / 2;
      if (!lines.some((l) => Math.abs(l - mid) < r.height / 2)) lines.push(mid);
    }
    if (lines.length > 1) problems.clipped.push(describe(el, text) + ' broken over ' + lines.length + ' lines');
  }

  // Controls of one row over one another.
  const kinds = 'button, a, input, select, label, h1, h2, h3, .chip, .panel-count, .key-hint, .badge, .day-field, .tv-badge';
  for (const row of scope.querySelectorAll(controlRows)) {
    if (!shown(row)) continue;
    const items = [...row.querySelectorAll(kinds)].filter((el) => shown(el) && !el.closest(userContent));
    const top = items.filter((el) => !items.some((o) => o !== el && o.contains(el)));
    for (let i = 0; i < top.length; i++) {
      for (let j = i + 1; j < top.length; j++) {
        const a = top[i].getBoundingClientRect();
        const b = top[j].getBoundingClientRect();
        const w = Math.min(a.right, b.right) - Math.max(a.left, b.left);
        const h = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
        if (w > 2 && h > 2)
          problems.overlapping.push(describe(top[i], (top[i].textContent || '').trim()) + ' over ' +
            describe(top[j], (top[j].textContent || '').trim()));
      }
    }
  }

  // The other language's words, in text and in what controls say of themselves.
  const matchers = foreign.map((f) => (f.pattern ? new RegExp(f.pattern, 's') : f.text));
  const isForeign = (text) =>
    matchers.some((m) => (typeof m === 'string' ? m === text : m.test(text))) ||
    (language === 'en' && /[぀-ヿ一-鿿]/.test(text));
  const texts = document.createTreeWalker(scope, NodeFilter.SHOW_TEXT);
  for (let node = texts.nextNode(); node; node = texts.nextNode()) {
    const text = (node.textContent || '').trim();
    const holder = node.parentElement;
    if (!text || !holder || holder.closest(userContent) || holder.closest('option, script, style')) continue;
    if (shown(holder) && isForeign(text)) problems.wrongLanguage.push(describe(holder, text));
  }
  for (const el of scope.querySelectorAll('[placeholder], [title], [aria-label]')) {
    if (!shown(el) || el.closest(userContent)) continue;
    for (const attr of ['placeholder', 'title', 'aria-label']) {
      const text = (el.getAttribute(attr) || '').trim();
      if (text && isForeign(text))
        problems.wrongLanguage.push(describe(el, '') + ' ' + attr + '="' + text.slice(0, 60) + '"');
    }
  }
  return problems;
}`;
