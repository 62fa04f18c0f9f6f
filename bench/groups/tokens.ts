import { estimateTokens, japaneseRatio } from '../../src/core/tokens';
import { countO200k } from '../../src/core/tokens/o200k';
import { loadCorpora, textOfSize } from '../lib/corpus';
import { count, mb, mbps, percent, ratio } from '../lib/format';
import { median, pairedRatio, rng } from '../lib/stats';
import { row, type BenchContext, type BenchGroup, type Row } from '../lib/types';

const TEXT_CHARS = 2 * 1024 * 1024;

export const tokensGroup: BenchGroup = {
  id: 'tokens',
  title: 'Token counting: seed estimate vs o200k',
  about:
    "`estimateTokens` (seed 001: characters / 4, or / 2 when at least half are Japanese) against `countO200k` (gpt-tokenizer's o200k_base, with the long-run and chunk cuts of src/core/tokens/o200k.ts) on three kinds of real text: English (this repo's Markdown prose and DESIGN.md), Japanese (the prose lines of the seed specifications) and code (this repo's TypeScript), ~2 MiB of each built from runs of consecutive lines. Throughput is UTF-8 bytes per second. The two are timed back to back in every run.",
  async run(ctx: BenchContext) {
    const rows: Row[] = [];
    const notes: string[] = [];
    const corpora = loadCorpora(ctx.repoRoot);
    const kinds: { label: string; lines: string[] }[] = [
      { label: 'English', lines: corpora.english },
      { label: 'Japanese', lines: corpora.japanese },
      { label: 'code', lines: corpora.code },
    ];
    // Warm both up (the tokenizer builds its tables on first use) outside the timings.
    countO200k('warm up the tokenizer');
    estimateTokens('warm up');
    for (const kind of kinds) {
      if (kind.lines.length === 0) {
        rows.push(
          row(`${kind.label} text`, 'not run', '—', '—', '—', {
            kind: 'skipped',
            note: 'the seeds are not beside the repo (../shared/seeds)',
          }),
        );
        continue;
      }
      const text = textOfSize(kind.lines, TEXT_CHARS, rng(kind.label.length));
      const bytes = Buffer.byteLength(text);
      const est: number[] = [];
      const o200k: number[] = [];
      let estimate = 0;
      let exact = 0;
      for (let i = 0; i < ctx.runs; i++) {
        const timeEstimate = (): void => {
          const started = performance.now();
          estimate = estimateTokens(text);
          est.push(performance.now() - started);
        };
        const timeO200k = (): void => {
          const started = performance.now();
          exact = countO200k(text);
          o200k.push(performance.now() - started);
        };
        if (i % 2 === 0) {
          timeEstimate();
          timeO200k();
        } else {
          timeO200k();
          timeEstimate();
        }
      }
      rows.push(
        row(
          `${kind.label}, ${mb(bytes)} (${percent(japaneseRatio(text))} Japanese characters): o200k vs estimate`,
          `${mbps(bytes, median(o200k))} (o200k)`,
          `${mbps(bytes, median(est))} (estimate)`,
          ratio(pairedRatio(est, o200k)),
        ),
      );
      notes.push(
        `${kind.label}: the estimate says ${count(estimate)} tokens, o200k ${count(exact)} (estimate ÷ o200k = ${(estimate / exact).toFixed(2)}).`,
      );
      ctx.log(
        `  ${kind.label}: o200k ${mbps(bytes, median(o200k))}, estimate ${mbps(bytes, median(est))}`,
      );
    }
    notes.push(
      'The ratio is o200k throughput ÷ estimate throughput: how much slower an exact count is. Appends count only the estimate (messages.jsonl keeps `tokens` with `token_counter`); an o200k count is made where a figure is shown and cached by content hash (issue #17).',
    );
    return { rows, notes };
  },
};
