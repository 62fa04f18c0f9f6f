import type { CompactionRecordInfo } from '../../../../shared/api/compaction-api';
import { useFormat } from '../../i18n/use-format';
import { useT } from '../../i18n/use-t';
import { CollapsibleText } from './collapsible-text';
import { ToolCallView } from './tool-call-view';
import { exitStatusOf } from './edit-call';
import { ROLE_KEYS } from './role-keys';
import { taskStrings } from './strings';
import { ToolOutput, trimmedRef } from './tool-output';
import type { KnownCall, TimelineMessage } from './use-message-windows';

export interface MessageRowProps {
  uuid: string;
  message: TimelineMessage;
  compaction: CompactionRecordInfo | undefined;
  call: KnownCall | undefined;
  /** Where the result of each of this message's tool calls sits, when already seen. */
  resultOf(callId: string): number | undefined;
  expanded: boolean;
  onToggle(): void;
  onJump(seq: number): void;
  /** Text to mark where it occurs (the match of the search that led here). */
  mark?: string;
}

/** One message of the timeline; summaries and markers read as compaction rows. */
/** The share of the context a compaction removed (null when it did not shrink it). */
function savedShare(c: CompactionRecordInfo): number | null {
  const before = c.tokens_before ?? c.original_tokens;
  const after = c.tokens_after ?? c.summary_tokens;
  return before > 0 && after < before ? (before - after) / before : null;
}

export function MessageRow({
  uuid,
  message,
  compaction,
  call,
  resultOf,
  expanded,
  onToggle,
  onJump,
  mark,
}: MessageRowProps) {
  const t = useT(taskStrings);
  const f = useFormat();
  const record = 'seq' in message ? message : null;
  const kind = record?.kind ?? 'message';
  const isCompaction = kind === 'summary' || kind === 'truncation-marker';
  const ref = message.role === 'tool' ? trimmedRef(message.content, record?.output_ref) : null;
  const toolName = message.tool_name ?? message.name ?? call?.name;
  // A compaction's own messages are history-only by construction: their compaction label says more.
  const historyOnly = record?.history_only === true && record.compaction_id === undefined;
  const classes = [
    'tv-row',
    `tv-role-${message.role}`,
    isCompaction ? `tv-kind-${kind}` : '',
    kind === 'inheritance' ? 'tv-kind-inheritance' : '',
    historyOnly ? 'tv-history-only' : '',
  ].join(' ');

  return (
    <article className={classes} data-seq={record?.seq} data-role={message.role}>
      <div className="tv-row-head">
        <span className="tv-seq">
          {record ? `#${record.seq}` : t('line', { n: (message as { index: number }).index })}
        </span>
        {isCompaction || kind === 'inheritance' ? (
          <span className="tv-kind-label">
            {kind === 'summary'
              ? t('summary')
              : kind === 'truncation-marker'
                ? t('marker')
                : t('inheritance')}
          </span>
        ) : (
          <span className="tv-role">
            {ROLE_KEYS[message.role] ? t(ROLE_KEYS[message.role]!) : message.role}
          </span>
        )}
        {message.role === 'tool' && (
          <span className="tv-tool-of">
            ↳ {toolName ? t('toolResult', { name: toolName }) : t('resultOf')}
            {call && record && call.seq !== record.seq - 1 && (
              <button type="button" className="tv-link" onClick={() => onJump(call.seq)}>
                {t('callAt', { seq: String(call.seq) })}
              </button>
            )}
          </span>
        )}
        {compaction && (
          <button
            type="button"
            className="tv-link tv-compaction-tokens"
            onClick={() => onJump(compaction.through_seq ?? compaction.end_seq)}
            title={t('compactionTokensHint', { strategy: compaction.strategy })}
          >
            {t('compactionTokens', {
              id: String(compaction.id),
              before: f.tokens(compaction.tokens_before ?? compaction.original_tokens),
              after: f.tokens(compaction.tokens_after ?? compaction.summary_tokens),
            })}
            {savedShare(compaction) !== null && (
              <span className="tv-saved">−{f.percent(savedShare(compaction)!)}</span>
            )}
          </button>
        )}
        {message.role === 'tool' && exitStatusOf(message.content) !== undefined && (
          <span
            className={`tv-badge ${exitStatusOf(message.content) === 0 ? 'tv-exit-ok' : 'tv-exit-fail'}`}
            data-testid="exit-status"
          >
            {t('exitStatus', { code: exitStatusOf(message.content)! })}
          </span>
        )}
        {historyOnly && <span className="tv-badge">{t('historyOnly')}</span>}
        {record?.model !== undefined && (
          <span
            className="tv-badge tv-model"
            data-testid="reply-model"
            title={t('replyModel', { model: record.model })}
          >
            {record.model}
          </span>
        )}
        <span className="tv-row-tokens">
          {record?.usage
            ? t('providerTokens', {
                n: f.tokens(
                  record.usage.input_tokens +
                    record.usage.cache_read_tokens +
                    record.usage.cache_creation_tokens,
                ),
              })
            : record
              ? t('estTokens', { n: f.tokens(record.tokens) })
              : ''}
        </span>
      </div>
      {message.content ? (
        <CollapsibleText
          text={message.content}
          expanded={expanded}
          onToggle={onToggle}
          mono={message.role === 'tool'}
          mark={mark}
        />
      ) : null}
      {ref && <ToolOutput key={ref} uuid={uuid} outputRef={ref} />}
      {message.tool_calls?.map((c) => (
        <ToolCallView key={c.id} call={c} resultSeq={resultOf(c.id)} onJump={onJump} mark={mark} />
      ))}
    </article>
  );
}
