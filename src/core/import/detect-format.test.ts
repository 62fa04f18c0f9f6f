import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ZipFile } from 'yazl';
import { detectFormat, sniffFile } from './detect-format';
import { readJsonDocument } from './json-document';
import { useTempDir } from '../../../test/support/temp-dir';

const tempDir = useTempDir();

function write(name: string, text: string | Buffer): string {
  const file = path.join(tempDir(), name);
  fs.writeFileSync(file, text);
  return file;
}

const detect = (file: string): Promise<string> => detectFormat(file, (f) => readJsonDocument(f));

describe('format detection (by content, not by file name)', () => {
  it('tells the JSONL formats apart, past leading lines of other kinds', async () => {
    const claude = [
      { type: 'file-history-snapshot', messageId: 'm', snapshot: {} },
      { type: 'user', sessionId: 's', uuid: 'u', message: { role: 'user', content: 'hi' } },
    ];
    expect(await detect(write('a.txt', claude.map((l) => JSON.stringify(l)).join('\n')))).toBe(
      'claude-code',
    );
    expect(await detect(write('b.json', '{"type":"summary","summary":"t","leafUuid":"x"}\n'))).toBe(
      'claude-code',
    );
    expect(
      await detect(
        write('c.log', '{"timestamp":"t","type":"session_meta","payload":{"id":"x"}}\n'),
      ),
    ).toBe('codex');
    expect(
      await detect(
        write(
          'd.jsonl',
          '{"id":"x","timestamp":"t","instructions":null}\n{"type":"message","role":"user","content":[]}\n',
        ),
      ),
    ).toBe('codex');
  });

  it('reads other JSON as one document and decides by its shape', async () => {
    expect(await detect(write('e.jsonl', JSON.stringify([{ role: 'user', content: 'x' }])))).toBe(
      'openai',
    );
    expect(await detect(write('f', JSON.stringify({ messages: [] }, null, 2)))).toBe('openai');
    expect(await detect(write('g.json', JSON.stringify([{ task_id: 1, traj: [] }], null, 2)))).toBe(
      'openai',
    );
    expect(
      await detect(write('h.json', JSON.stringify({ history: [], trajectory: [] }, null, 2))),
    ).toBe('swe-agent');
    await expect(detect(write('i.json', '{"a": 1}'))).rejects.toThrow(
      /cannot tell its format .* pass --format/,
    );
    await expect(detect(write('j.json', ''))).rejects.toThrow(/not valid JSON/);
  });

  it('never reads another agent as OpenAI chat: each claims its own shape, the rest is refused', async () => {
    const gemini = {
      sessionId: 's',
      projectHash: 'h',
      messages: [{ id: '1', type: 'user', content: 'hi' }],
    };
    expect(await detect(write('session-1.json', JSON.stringify(gemini, null, 2)))).toBe(
      'gemini-cli',
    );
    const openhands = [{ id: 0, source: 'user', action: 'message', args: { content: 'hi' } }];
    expect(await detect(write('traj.json', JSON.stringify(openhands)))).toBe('openhands');
    expect(await detect(write('3.json', JSON.stringify(openhands[0])))).toBe('openhands');
    const cline = [
      { role: 'user', content: [{ type: 'text', text: '<task>\nhi\n</task>' }] },
      { role: 'assistant', content: [{ type: 'tool_use', id: 't', name: 'read_file', input: {} }] },
    ];
    expect(await detect(write('history.json', JSON.stringify(cline)))).toBe('cline');
    expect(
      await detect(
        write(
          '.aider.chat.history.md',
          '\n# aider chat started at 2024-08-05 19:33:02\n\n#### hi\n',
        ),
      ),
    ).toBe('aider');
    expect(await detect(write('notes.md', '# aider chat started at 2024-08-05 19:33:02\n'))).toBe(
      'aider',
    );
    // Lists of role-less or malformed messages are not guessed as chat.
    await expect(
      detect(write('k.json', JSON.stringify({ messages: [{ kind: 'x' }] }))),
    ).rejects.toThrow(/cannot tell its format/);
    await expect(
      detect(write('l.json', JSON.stringify({ sessionId: 's', messages: [{ type: 'robot' }] }))),
    ).rejects.toThrow(/cannot tell its format/);
  });

  it('knows a zip by its magic bytes', async () => {
    const zip = new ZipFile();
    zip.addBuffer(Buffer.from('{}'), 'manifest.json');
    zip.end();
    const chunks: Buffer[] = [];
    for await (const c of zip.outputStream) chunks.push(c as Buffer);
    expect(await sniffFile(write('archive.bin', Buffer.concat(chunks)))).toEqual({ kind: 'zip' });
    expect(await detect(write('archive2.json', Buffer.concat(chunks)))).toBe('cwb');
  });
});
