import { useT } from '../../i18n/use-t';
import { taskStrings } from './strings';
import { useFormat } from '../../i18n/use-format';
import { formatBytes } from '../../format/numbers';

const MAX_CHARS = 900;
const MAX_LINES = 10;

/** Long content shows its start and an expand button; the choice lives with the parent (rows are recycled). */
export function CollapsibleText({
  text,
  expanded,
  onToggle,
  mono = false,
}: {
  text: string;
  expanded: boolean;
  onToggle(): void;
  mono?: boolean;
}) {
  const t = useT(taskStrings);
  const f = useFormat();
  const lines = text.split('\n');
  const long = text.length > MAX_CHARS || lines.length > MAX_LINES;
  const shown =
    long && !expanded ? lines.slice(0, MAX_LINES).join('\n').slice(0, MAX_CHARS) + '…' : text;
  return (
    <div className="tv-text-block">
      <div className={mono ? 'tv-text tv-mono' : 'tv-text'}>{shown}</div>
      {long && (
        <button type="button" className="tv-link tv-expand" onClick={onToggle}>
          {expanded
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
