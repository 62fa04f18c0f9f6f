/** A piece of a text, and whether it is an occurrence of what a search matched. */
export interface TextPart {
  text: string;
  marked: boolean;
}

/** At most this many occurrences are marked: a one-letter match in a long output would be noise. */
const MAX_MARKS = 200;

/**
 * The text cut at each occurrence of `mark`, ignoring case (the index folds case; the hit's
 * own text keeps the message's case, but a search for "Foo" also finds "foo").
 */
export function markParts(text: string, mark: string | undefined): TextPart[] {
  if (!mark) return [{ text, marked: false }];
  const haystack = text.toLowerCase();
  const needle = mark.toLowerCase();
  // Lower-casing can change a string's length (İ): then positions would not line up.
  if (haystack.length !== text.length || needle.length !== mark.length)
    return [{ text, marked: false }];
  const parts: TextPart[] = [];
  let from = 0;
  for (let n = 0; n < MAX_MARKS; n++) {
    const at = haystack.indexOf(needle, from);
    if (at < 0) break;
    if (at > from) parts.push({ text: text.slice(from, at), marked: false });
    parts.push({ text: text.slice(at, at + needle.length), marked: true });
    from = at + needle.length;
  }
  if (from < text.length) parts.push({ text: text.slice(from), marked: false });
  return parts;
}

/** Where the first occurrence of `mark` starts in `text` (ignoring case), or -1. */
export function firstMark(text: string, mark: string | undefined): number {
  return mark ? text.toLowerCase().indexOf(mark.toLowerCase()) : -1;
}
