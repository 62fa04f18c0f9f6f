import { markParts } from './mark-parts';

/** Text with each occurrence of `mark` in a <mark> (the first one scrolled to by the timeline). */
export function MarkedText({ text, mark }: { text: string; mark: string | undefined }) {
  if (!mark) return <>{text}</>;
  return (
    <>
      {markParts(text, mark).map((part, i) =>
        part.marked ? (
          <mark key={i} className="tv-match">
            {part.text}
          </mark>
        ) : (
          part.text
        ),
      )}
    </>
  );
}
