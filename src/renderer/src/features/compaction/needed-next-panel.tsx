import { useEffect, useMemo, useState } from 'react';
import { agentLabel } from '../../../../shared/agents';
import type { NeededNextInfo } from '../../../../shared/needed-next-info';
import { useApi } from '../../api/api-context';
import { useFormat } from '../../i18n/use-format';
import { useT, type Translate } from '../../i18n/use-t';
import type { Formats } from '../../i18n/use-format';
import { compactionStrings, type CompactionStringKey } from './strings';
import { StrategyPlot } from './strategy-compare';
import { neededPlotInputs, NEEDED_GOAL, sameSpace } from './needed-next-figures';
import { layoutPlot } from './strategy-plot';

type State =
  | { kind: 'loading' }
  | { kind: 'ready'; info: NeededNextInfo }
  | { kind: 'error'; message: string };

const LOST_SHOWN = 12;

/**
 * "Needed next" (FRR) of one compaction, the headline of its quality: what it kept of the
 * facts the agent typed after it, and the re-reads the agent paid. For an agent's own
 * compaction, one line and a plot set it beside the workbench's pipeline on the same prefix.
 * Loaded apart from the diff: that pipeline run takes a moment.
 */
export function NeededNextPanel({ uuid, id }: { uuid: string; id: number }) {
  const t = useT(compactionStrings);
  const api = useApi();
  const [state, setState] = useState<State>({ kind: 'loading' });
  useEffect(() => {
    let live = true;
    setState({ kind: 'loading' });
    api.compactionNeededNext({ uuid, id }).then(
      (info) => live && setState({ kind: 'ready', info }),
      (err: unknown) =>
        live &&
        setState({ kind: 'error', message: err instanceof Error ? err.message : String(err) }),
    );
    return () => {
      live = false;
    };
  }, [api, uuid, id]);
  return (
    <section
      className="cmp-panel cmp-needed"
      aria-label={t('neededTitle')}
      aria-busy={state.kind === 'loading'}
      data-state={state.kind}
    >
      <h2 title={t('neededHint')}>{t('neededTitle')}</h2>
      {state.kind === 'loading' && <p className="cmp-sub">{t('neededLoading')}</p>}
      {state.kind === 'error' && (
        <p className="cmp-field-error" role="alert">
          {t('neededFailed')}: {state.message}
        </p>
      )}
      {state.kind === 'ready' && <NeededNextBody info={state.info} />}
    </section>
  );
}

function NeededNextBody({ info }: { info: NeededNextInfo }) {
  const t = useT(compactionStrings);
  const f = useFormat();
  const agent = info.agent ? agentLabel(info.agent, t('theAgent')) : t('theAgent');
  const agentSummary = t('neededAgentSummary', { agent });
  const pipeline = t('neededPipeline');
  const inputs = useMemo(
    () => neededPlotInputs(info, { agent: agentSummary, pipeline }),
    [info, agentSummary, pipeline],
  );
  const layout = useMemo(() => layoutPlot(inputs, { goal: NEEDED_GOAL }), [inputs]);
  const cost = info.reReads.costUsd === null ? '' : `, $${info.reReads.costUsd.toFixed(2)}`;
  const lost = info.lost.slice(0, LOST_SHOWN);
  const more = info.needed - info.kept - lost.length;
  return (
    <>
      <p className="cmp-needed-line" data-testid="needed-line">
        {headline(info, agent, t, f)}
      </p>
      <p className="cmp-sub">{t('neededHint')}</p>
      {inputs.length > 1 && (
        <div className="cmp-plot-row cmp-needed-plot">
          <StrategyPlot
            layout={layout}
            hot={null}
            axes={{ x: t('neededAxisShare'), y: t('neededAxisFrr'), aria: t('neededPlotAria') }}
          />
          <div className="cmp-plot-aside">
            <p className="cmp-plot-legend">
              <span>
                <svg width="14" height="12" aria-hidden="true">
                  <rect className="cmp-plot-goal" x="0" y="0" width="14" height="12" />
                </svg>
                {t('neededGoal', { x: 100 - NEEDED_GOAL.x, y: NEEDED_GOAL.y })}
              </span>
            </p>
          </div>
        </div>
      )}
      <p className="cmp-needed-rereads" data-testid="re-reads">
        {info.reReads.count === 0
          ? t('reReadsNone')
          : t('reReads', {
              count: info.reReads.count,
              tokens: f.tokens(info.reReads.tokens),
              cost,
            })}
      </p>
      {lost.length > 0 && (
        <details className="cmp-quality">
          <summary>{t('neededLostTitle')}</summary>
          <ul className="cmp-needed-lost">
            {lost.map((fact, i) => (
              <li key={i}>
                <code>{fact.text}</code>
              </li>
            ))}
            {more > 0 && <li className="cmp-more">{t('neededMoreLost', { count: more })}</li>}
          </ul>
        </details>
      )}
      {info.notes.map((n) => (
        <p key={n} className="cmp-note">
          {n}
        </p>
      ))}
    </>
  );
}

function headline(
  info: NeededNextInfo,
  agent: string,
  t: Translate<CompactionStringKey>,
  f: Formats,
): string {
  if (info.frr === null) return t('neededNone');
  const base = { needed: info.needed, kept: info.kept, percent: f.percent(info.frr) };
  if (!info.agent) return t('neededOurs', base);
  const ours = info.pipeline;
  if (!ours || !ours.applied) return t('neededAgentNoPipeline', { ...base, agent });
  if (sameSpace(info)) return t('neededAgent', { ...base, agent, ours: ours.kept });
  return t('neededAgentWider', {
    ...base,
    agent,
    ours: ours.kept,
    agentTokens: f.tokens(info.tokensAfter),
    oursTokens: f.tokens(ours.tokensAfter),
  });
}
