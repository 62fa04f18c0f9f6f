import { describe, expect, it } from 'vitest';
import { SUMMARY_PROMPT_EN, SUMMARY_PROMPT_JA, splitSummaryPrompt } from './summary-prompt';

describe('summary prompts', () => {
  it('both mark where the messages go and ask for the same four points', () => {
    for (const prompt of [SUMMARY_PROMPT_JA, SUMMARY_PROMPT_EN]) {
      expect(prompt.split('{messages}')).toHaveLength(2);
      for (const n of ['1. ', '2. ', '3. ', '4. ']) expect(prompt).toContain(n);
    }
  });

  it('splits around {messages}', () => {
    expect(splitSummaryPrompt('head\n{messages}\ntail')).toEqual({
      before: 'head\n',
      after: '\ntail',
    });
  });

  it('appends the messages to a prompt without the placeholder', () => {
    expect(splitSummaryPrompt('Summarize:')).toEqual({ before: 'Summarize:\n', after: '' });
  });
});
