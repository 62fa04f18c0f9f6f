import { useState, type ReactNode } from 'react';
import type { DiffMessage } from '../../../../shared/api/compaction-api';
import { useT } from '../../i18n/use-t';
import { FactHighlight } from './fact-highlight';
import type { LostFact } from '../../../../shared/fact-kinds';
import { compactionStrings, type CompactionStringKey } from './strings';

const COLLAPSED_CHARS = 600;

const ROLE_KEYS: Record<string, CompactionStringKey> = {
  system: 'roleSystem',
  user: 'roleUser',
  assistant: 'roleAssistant',
  tool: 'roleTool',
};
const KIND_KEYS: Partial<Record<string, CompactionStringKey>> = {
  summary: 'kindSummary',
  'truncation-marker': 'kindMarker',
  inheritance: 'kindInheritance',
};

/**
 * One message of a context: who said it, its seq and size, and its text with lost facts
 * marked. Long texts start collapsed (a tool output can be pages long); `body` replaces the
 * text (the word diff of a changed message).
 */
export function MessageCard({
  message,
  facts = [],
  tag,
  tone,
  body,
  collapseAt = COLLAPSED_CHARS,
}: {
  message: DiffMessage;
  /** Longer texts start collapsed to this many characters. */
  collapseAt?: number;
  facts?: readonly LostFact[];
  tag?: string;
  tone?: 'removed' | 'added' | 'changed' | 'summary';
  body?: ReactNode;
}) {
  const t = useT(compactionStrings);
  const text = message.toolCalls
    ? `${message.content}${message.content ? '\n' : ''}${message.toolCalls}`
    : message.content;
  const [open, setOpen] = useState(text.length <= collapseAt);
  const roleKey = ROLE_KEYS[message.role];
  const kindKey = message.kind ? KIND_KEYS[message.kind] : undefined;
  return (
    <article className={`cmp-msg cmp-role-${message.role}${tone ? ` cmp-tone-${tone}` : ''}`}>
      <header className="cmp-msg-head">
        <span className="cmp-role">{roleKey ? t(roleKey) : message.role}</span>
        {message.toolName && <code className="cmp-tool">{message.toolName}</code>}
        {kindKey && <span className="cmp-kind">{t(kindKey)}</span>}
        {tag && <span className={`cmp-tag cmp-tag-${tone ?? 'plain'}`}>{tag}</span>}
        <span className="cmp-msg-meta">
          {message.seq !== null && <span>{t('seqOf', { seq: String(message.seq) })}</span>}
          <span title={t('tokensOf', { count: message.tokens })}>
            {t('tokensShort', { count: message.tokens })}
          </span>
        </span>
      </header>
      <div className="cmp-msg-body">
        {body ?? (
          <FactHighlight text={open ? text : `${text.slice(0, collapseAt)}…`} facts={facts} />
        )}
      </div>
      {!body && text.length > collapseAt && (
        <button type="button" className="cmp-link-button" onClick={() => setOpen(!open)}>
          {open ? t('showLess') : t('showMore', { count: text.length - collapseAt })}
        </button>
      )}
      {message.clipped && <p className="cmp-note">{t('clipped')}</p>}
    </article>
  );
}
