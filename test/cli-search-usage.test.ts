import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SessionSearchResult } from '../src/shared/api/search-api';
import type { UsageReport } from '../src/shared/api/usage-api';
import { realFixture } from './support/real-fixtures';
import { runCwb } from './support/run-ts';

let dir: string;
let root: string;
let config: string;

function cwb(...args: string[]): ReturnType<typeof runCwb> {
  return runCwb(['--contexts', root, '--config', config, ...args], { TZ: 'UTC' });
}

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cwb-search-cli-'));
  root = path.join(dir, 'contexts');
  config = path.join(dir, 'config.yaml');
  fs.writeFileSync(config, 'llm:\n  provider: openai\n');
  const imported = cwb(
    'import',
    realFixture('claude-code'),
    realFixture('swe-agent'),
    realFixture('gemini-cli'),
  );
  expect(imported.status, imported.stderr).toBe(0);
}, 120_000);

afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('cwb search and cwb usage', () => {
  it('search --json gives hits with uuid, seq and snippet, filtered by agent', () => {
    const run = cwb('search', 'dataset', '--agent', 'swe-agent', '--limit', '5', '--json');
    expect(run.status, run.stderr).toBe(0);
    const result = JSON.parse(run.stdout) as SessionSearchResult;
    expect(result.hits).toHaveLength(5);
    expect(result.more).toBe(true);
    for (const hit of result.hits) {
      expect(hit.uuid).toMatch(/^[0-9a-f-]{36}$/);
      expect(hit.seq).toBeGreaterThan(0);
      expect(hit.snippet.toLowerCase()).toContain('dataset');
      expect(hit.agent).toBe('swe-agent');
    }
    // The hit opens at that seq: `cwb messages` shows the matching message there.
    const first = result.hits[0]!;
    const message = cwb(
      'messages',
      first.uuid,
      '--from',
      String(first.seq),
      '--limit',
      '1',
      '--json',
    );
    expect(JSON.parse(message.stdout).messages[0].seq).toBe(first.seq);
  });

  it('search --exact finds a path as typed and says when nothing matches', () => {
    const exact = cwb('search', 'pydicom/dataset.py', '--exact', '--json');
    const hits = (JSON.parse(exact.stdout) as SessionSearchResult).hits;
    expect(hits.length).toBeGreaterThan(0);
    for (const h of hits) expect(h.snippet.slice(...h.match!)).toBe('pydicom/dataset.py');
    const none = cwb('search', 'qqqzzzxxy');
    expect(none.status).toBe(0);
    expect(none.stdout).toContain('No messages match');
    const bad = cwb('search', 'x', '--role', 'robot');
    expect(bad.status).not.toBe(0);
    expect(bad.stderr).toContain('--role');
  });

  it('usage --json rows add up to the total, with tokens by kind and cost.usd', () => {
    for (const by of ['day', 'model', 'agent'] as const) {
      const run = cwb('usage', '--by', by, '--json');
      expect(run.status, run.stderr).toBe(0);
      const report = JSON.parse(run.stdout) as UsageReport;
      expect(report.rows.length).toBeGreaterThan(0);
      const usd = report.rows.reduce((s, r) => s + r.cost.usd, 0);
      expect(Math.round(usd * 100)).toBe(Math.round(report.total.cost.usd * 100));
      for (const r of report.rows)
        expect(Object.keys(r.tokens).sort()).toEqual([
          'cache_read',
          'cache_write',
          'input',
          'output',
        ]);
    }
    const text = cwb('usage', '--by', 'month');
    expect(text.stdout).toContain('CACHE READ');
    expect(text.stdout).toContain('Cache reads:');
    const bad = cwb('usage', '--since', '2026-13-45');
    expect(bad.status).not.toBe(0);
    expect(bad.stderr).toContain('--since');
  });
});
