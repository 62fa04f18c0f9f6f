/**
 * What the sync engine hands a format's mapper: the sink and mapper contracts shared with
 * `cwb import` (src/core/import/transcript-sink.ts), under the names the sources use.
 */
export {
  MAIN,
  type ThreadInfo,
  type EntryRef,
  type TranscriptSink as SyncSink,
  type EntryMapper,
  type CreateEntryMapper,
} from '../import/transcript-sink';
