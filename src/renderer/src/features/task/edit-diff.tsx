import { diffLines } from 'diff';
import type { EditCall } from './edit-call';

interface Line {
  sign: '+' | '-' | ' ';
  text: string;
}

function linesOf(before: string, after: string): Line[] {
  return diffLines(before, after).flatMap((part) => {
    const sign = part.added ? '+' : part.removed ? '-' : ' ';
    const text = part.value.endsWith('\n') ? part.value.slice(0, -1) : part.value;
    return text.split('\n').map((line) => ({ sign, text: line }) as Line);
  });
}

function patchLines(patch: string): Line[] {
  return patch.split('\n').map((text) => {
    const sign = text.startsWith('+') ? '+' : text.startsWith('-') ? '-' : ' ';
    return { sign, text: sign === ' ' ? text : text.slice(1) } as Line;
  });
}

/** An edit, a write or a patch as a line diff (loaded with the first edit call shown). */
export function EditDiff({ edit }: { edit: EditCall }) {
  const blocks: { path: string; lines: Line[] }[] =
    edit.kind === 'replace'
      ? edit.edits.map((e) => ({ path: edit.path, lines: linesOf(e.before, e.after) }))
      : edit.kind === 'write'
        ? [{ path: edit.path, lines: linesOf('', edit.content) }]
        : [{ path: '', lines: patchLines(edit.patch) }];
  return (
    <div className="tv-edit-diff">
      {blocks.map((b, i) => (
        <div key={i} className="tv-diff-block">
          {b.path && i === 0 && <div className="tv-diff-path">{b.path}</div>}
          <pre className="tv-diff" data-testid="edit-diff">
            {b.lines.map((l, j) => (
              <span
                key={j}
                className={l.sign === '+' ? 'tv-diff-add' : l.sign === '-' ? 'tv-diff-del' : ''}
              >
                <span className="tv-diff-sign" aria-hidden="true">
                  {l.sign}
                </span>
                {l.text}
                {'\n'}
              </span>
            ))}
          </pre>
        </div>
      ))}
    </div>
  );
}
