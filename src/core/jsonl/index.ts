/**
 * JSON Lines storage primitives. Every reader works in bounded chunks, so memory stays flat
 * however large a file grows.
 *
 * Opening a log for writing after a possible crash: recoverTornTail(path) first (cuts a
 * half-written last line), then OffsetIndex.open(path) (repairs the index against the cut
 * file), then new AppendLog(path). Each append: log.append(...) then index.append(offset).
 */
export { AppendLog, appendJsonLine } from './append-log';
export type { AppendLogOptions, AppendResult } from './append-log';
export { writeFileAtomic, writeFileAtomicChunks, writeFileAtomicFrom } from './atomic-write';
export { CHUNK_BYTES, DEFAULT_MAX_LINE_BYTES } from './constants';
export { readJsonl, readJsonlSync } from './jsonl-reader';
export type { JsonlEntry, ReadJsonlOptions } from './jsonl-reader';
export { isTooLong } from './line-entry';
export type { LineEntry, ReadLinesOptions, TextLineEntry, TooLongLineEntry } from './line-entry';
export { readLines, readLinesSync } from './line-reader';
export { OffsetIndex } from './offset-index';
export { printable } from './printable';
export type { OffsetIndexOptions } from './offset-index';
export { readLastLine, readLastLines } from './tail';
export type { ReadLastLinesOptions } from './tail';
export { recoverTornTail } from './torn-tail';
export type { TornTailResult } from './torn-tail';
