/**
 * Where to cut `text` at or just before `end` (a UTF-16 index inside it) so that no
 * surrogate pair is split: half an emoji would turn into a replacement character.
 */
export function cutIndex(text: string, end: number): number {
  if (end <= 0 || end >= text.length) return end;
  const code = text.charCodeAt(end - 1);
  return code >= 0xd800 && code <= 0xdbff ? end - 1 : end;
}
