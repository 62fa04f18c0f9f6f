import { useT } from '../../i18n/use-t';
import { taskStrings } from './strings';
import { useFormat } from '../../i18n/use-format';
import { formatBytes } from '../../format/numbers';
import { firstMark } from './mark-parts';
import { MarkedText } from './marked-text';

const MAX_CHARS = 900;
const MAX_LINES = 10;

/**
 * Long content shows its start and an expand button; the choice lives with the parent (rows
 * are recycled). A `mark` past the start opens it: the reader came for that text.
 */
export function CollapsibleText({
  text,
  expanded,
  onToggle,
  mono = false,
  mark,
}: {
  text: string;
  expanded: boolean;
  onToggle(): void;
  mono?: boolean;
  mark?: string;
}) {
  const t = useT(taskStrings);
  const f = useFormat();
  const lines = text.split('\n');
  const long = text.length > MAX_CHARS || lines.length > MAX_LINES;
  const start = lines.slice(0, MAX_LINES).join('\n').slice(0, MAX_CHARS);
  // Opened for the mark, the toggle works the other way round (a click folds it).
  const markBeyond = long && firstMark(text, mark) + (mark?.length ?? 0) > start.length;
  const open = markBeyond ? !expanded : expanded;
  const shown = long && !open ? start + '…' : text;
  return (
    <div className="tv-text-block">
      <div className={mono ? 'tv-text tv-mono' : 'tv-text'}>
        <MarkedText text={shown} mark={mark} />
      </div>
      {long && (
        <button type="button" className="tv-link tv-expand" onClick={onToggle}>
          {open
            ? t('collapse')
            : t('expandBytes', {
                bytes: formatBytes(new TextEncoder().encode(text).length, f.language),
                lines: f.number(lines.length),
              })}
        </button>
      )}
    </div>
  );
}
