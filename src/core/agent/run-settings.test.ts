import { describe, expect, it } from 'vitest';
import { runSettingsOf, withRunSettings } from './run-settings';

describe('run settings in a row’s metadata', () => {
  it('keeps max turns and a plain base URL next to other metadata, and reads them back', () => {
    const stored = withRunSettings(JSON.stringify({ source: { format: 'codex' } }), {
      max_turns: 200,
      base_url: 'http://127.0.0.1:8080/v1',
    });
    expect(stored).toEqual({
      source: { format: 'codex' },
      run: { max_turns: 200, base_url: 'http://127.0.0.1:8080/v1' },
    });
    expect(runSettingsOf(JSON.stringify(stored))).toEqual({
      max_turns: 200,
      base_url: 'http://127.0.0.1:8080/v1',
    });
  });

  it('never keeps a URL with credentials or a query, and ignores anything malformed', () => {
    for (const url of ['https://user:sk-secret@llm.example/v1', 'https://llm.example/v1?key=sk-1'])
      expect(JSON.stringify(withRunSettings(null, { max_turns: 5, base_url: url }))).not.toMatch(
        /sk-/,
      );
    expect(runSettingsOf(null)).toEqual({});
    expect(runSettingsOf('not json')).toEqual({});
    expect(runSettingsOf('{"run":[1]}')).toEqual({});
    expect(runSettingsOf('{"run":{"max_turns":-3,"base_url":"https://u:p@x/"}}')).toEqual({});
    expect(runSettingsOf('{"run":{"max_turns":1.5}}')).toEqual({});
  });
});
