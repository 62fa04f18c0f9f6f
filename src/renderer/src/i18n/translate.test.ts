import { describe, expect, it } from 'vitest';
import { defineStrings, plural, translate } from './translate';

const strings = defineStrings({
  en: {
    imported: plural('count', {
      one: '{file}: {count} task imported',
      other: '{file}: {count} tasks imported',
    }),
    plain: '{n} in context',
  },
  ja: {
    imported: '{file}: {count} 件のタスクをインポートしました',
    plain: '{n} 件',
  },
});

describe('translate', () => {
  it('chooses the English plural form by Intl.PluralRules', () => {
    expect(translate(strings, 'en', 'imported', { file: 'a.traj', count: 1 })).toBe(
      'a.traj: 1 task imported',
    );
    expect(translate(strings, 'en', 'imported', { file: 'a.traj', count: 0 })).toBe(
      'a.traj: 0 tasks imported',
    );
    expect(translate(strings, 'en', 'imported', { file: 'a.traj', count: 12_345 })).toBe(
      'a.traj: 12,345 tasks imported',
    );
  });

  it('reads Japanese counters with 件 whatever the count', () => {
    expect(translate(strings, 'ja', 'imported', { file: 'a.traj', count: 1 })).toBe(
      'a.traj: 1 件のタスクをインポートしました',
    );
  });

  it('writes number placeholders in the UI language and leaves text as given', () => {
    expect(translate(strings, 'en', 'plain', { n: 1234567 })).toBe('1,234,567 in context');
    expect(translate(strings, 'ja', 'plain', { n: '#1234' })).toBe('#1234 件');
    expect(translate(strings, 'en', 'plain')).toBe('{n} in context');
  });
});
