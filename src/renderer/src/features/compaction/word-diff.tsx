import { diffWords } from 'diff';

/** Beyond this many characters a word diff takes too long to be worth it: both texts are shown whole. */
const MAX_WORD_DIFF_CHARS = 30_000;

/** Word-level diff of one message's text before and after (removed struck through, added marked). */
export function WordDiff({ before, after }: { before: string; after: string }) {
  if (before.length + after.length > MAX_WORD_DIFF_CHARS) {
    return (
      <>
        <del className="cmp-del">{before}</del>
        {'\n'}
        <ins className="cmp-ins">{after}</ins>
      </>
    );
  }
  return (
    <>
      {diffWords(before, after).map((part, i) =>
        part.added ? (
          <ins key={i} className="cmp-ins">
            {part.value}
          </ins>
        ) : part.removed ? (
          <del key={i} className="cmp-del">
            {part.value}
          </del>
        ) : (
          <span key={i}>{part.value}</span>
        ),
      )}
    </>
  );
}
