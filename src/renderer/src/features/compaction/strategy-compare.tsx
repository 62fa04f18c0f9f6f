import { useMemo, useState } from 'react';
import type {
  CompactionEvalPoint,
  CompactionStrategyName,
} from '../../../../shared/api/compaction-api';
import { keptShare } from '../../../../shared/fact-kinds';
import { useApi } from '../../api/api-context';
import { useFormat } from '../../i18n/use-format';
import { useT } from '../../i18n/use-t';
import { keptPercent, percentOf } from './quality-figures';
import { KindScores } from './quality-summary';
import { GOAL, layoutPlot, type PlotInput, type PlotLayout } from './strategy-plot';
import { compactionStrings } from './strings';

type State =
  | { kind: 'idle' }
  | { kind: 'loading' }
  | { kind: 'ready'; points: CompactionEvalPoint[] }
  | { kind: 'error'; message: string };

/** An evaluated candidate as the plot places it: saved on the span and salient facts kept, in %. */
export function plotInputs(points: readonly CompactionEvalPoint[]): PlotInput[] {
  return points.flatMap((p) =>
    p.applied && p.quality
      ? [
          {
            key: p.label,
            label: p.label,
            x: p.quality.savedShare * 100,
            y: keptShare(p.quality!.facts.salient) * 100,
            isDefault: p.isDefault,
          },
        ]
      : [],
  );
}

export function inGoal(p: CompactionEvalPoint): boolean {
  return (
    p.applied &&
    !!p.quality &&
    p.quality.savedShare * 100 >= GOAL.x &&
    keptShare(p.quality.facts.salient) * 100 >= GOAL.y
  );
}

/**
 * "Compare strategies": each strategy alone and the configured pipeline scored on this task
 * (evaluateCompaction: offline dry runs), drawn as facts kept against tokens saved on the
 * span, with a table under it. Nothing is asked before the reader opens it. `onPick` puts a
 * candidate's strategies in the pipeline picker (the compactions tab passes it).
 */
export function StrategyCompare({
  uuid,
  beforeRecord,
  onPick,
}: {
  uuid: string;
  /** On a diff page: score on the context just before that compaction, not the one now. */
  beforeRecord?: number;
  onPick?: (strategies: CompactionStrategyName[]) => void;
}) {
  const t = useT(compactionStrings);
  const api = useApi();
  const [state, setState] = useState<State>({ kind: 'idle' });
  const score = (): void => {
    setState({ kind: 'loading' });
    api.evaluateCompaction({ uuid, ...(beforeRecord !== undefined && { beforeRecord }) }).then(
      (r) => setState({ kind: 'ready', points: r.points }),
      (err: unknown) =>
        setState({ kind: 'error', message: err instanceof Error ? err.message : String(err) }),
    );
  };
  return (
    <section className="cmp-panel cmp-compare" aria-label={t('compareTitle')}>
      <div className="cmp-panel-head">
        <div>
          <h2>{t('compareTitle')}</h2>
          <p className="cmp-sub">
            {beforeRecord === undefined
              ? t('compareSub')
              : t('compareSubBefore', { id: beforeRecord })}
          </p>
        </div>
        <button
          type="button"
          className={state.kind === 'idle' ? 'cmp-primary' : ''}
          disabled={state.kind === 'loading'}
          onClick={score}
        >
          {state.kind === 'idle' ? t('compareButton') : t('compareAgain')}
        </button>
      </div>
      {state.kind === 'loading' && (
        <p className="cmp-progress" role="status">
          <span className="cmp-spinner cmp-spinner-small" aria-hidden="true" />
          {t('comparing')}
        </p>
      )}
      {state.kind === 'error' && (
        <p className="cmp-field-error" role="alert">
          {t('compareFailed')}: {state.message}
        </p>
      )}
      {state.kind === 'ready' && (
        <CompareResult points={state.points} past={beforeRecord !== undefined} onPick={onPick} />
      )}
    </section>
  );
}

function CompareResult({
  points,
  past,
  onPick,
}: {
  points: CompactionEvalPoint[];
  /** Scored on a past context (the one before a compaction), not the context now. */
  past: boolean;
  onPick?: (strategies: CompactionStrategyName[]) => void;
}) {
  const t = useT(compactionStrings);
  const f = useFormat();
  const [hot, setHot] = useState<string | null>(null);
  const inputs = useMemo(() => plotInputs(points), [points]);
  const layout = useMemo(() => layoutPlot(inputs), [inputs]);
  const contextTokens = points[0]?.tokensBefore;
  return (
    <div className="cmp-compare-body">
      {contextTokens !== undefined && (
        <p className="cmp-note">
          {t(past ? 'compareContextBefore' : 'compareContext', {
            tokens: f.tokens(contextTokens),
          })}
        </p>
      )}
      {inputs.length === 0 ? (
        <p className="cmp-empty">{t('compareNothing')}</p>
      ) : (
        <>
          <div className="cmp-plot-row">
            <StrategyPlot layout={layout} hot={hot} />
            <div className="cmp-plot-aside">
              <p className="cmp-plot-legend">
                <span>
                  <svg width="14" height="12" aria-hidden="true">
                    <rect className="cmp-plot-goal" x="0" y="0" width="14" height="12" />
                  </svg>
                  {t('goalLabel', { x: GOAL.x, y: GOAL.y })}
                </span>
                <span>
                  <Marker isDefault />
                  {t('configured')}
                </span>
                <span>
                  <Marker />
                  {t('otherCandidates')}
                </span>
              </p>
              <p className="cmp-sub">{t('compareHowTo', { x: GOAL.x, y: GOAL.y })}</p>
            </div>
          </div>
        </>
      )}
      <div className="cmp-table-wrap">
        <table className="cmp-table cmp-compare-table">
          <thead>
            <tr>
              <th aria-hidden="true" />
              <th>{t('colCandidate')}</th>
              <th className="cmp-num">{t('colSpanSaved')}</th>
              <th className="cmp-num">{t('colFactsKept')}</th>
              <th>{t('colByKind')}</th>
              <th className="cmp-num">{t('colContextAfter')}</th>
              {onPick && <th />}
            </tr>
          </thead>
          <tbody>
            {points.map((p) => {
              const q = p.applied ? p.quality : undefined;
              const kept = q ? keptPercent(q.facts.salient) : null;
              return (
                <tr
                  key={p.label}
                  data-label={p.label}
                  className={`${p.isDefault ? 'cmp-row-default' : ''}${hot === p.label ? ' cmp-row-hot' : ''}`}
                  onMouseEnter={() => q && setHot(p.label)}
                  onMouseLeave={() => setHot(null)}
                >
                  <td className="cmp-marker-cell">
                    {q ? <Marker isDefault={p.isDefault} /> : '–'}
                  </td>
                  <td className="cmp-candidate">
                    <code>{p.label}</code>
                    {(p.isDefault || inGoal(p)) && (
                      <span className="cmp-candidate-tags">
                        {p.isDefault && (
                          <span className="cmp-tag cmp-tag-default">{t('configured')}</span>
                        )}
                        {inGoal(p) && (
                          <span className="cmp-tag cmp-tag-added">{t('meetsGoal')}</span>
                        )}
                      </span>
                    )}
                  </td>
                  {q ? (
                    <>
                      <td className="cmp-num">{percentOf(q.savedShare)} %</td>
                      <td className="cmp-num">
                        {q.facts.salient.kept}/{q.facts.salient.total}
                        {kept !== null && <span className="cmp-muted"> ({kept} %)</span>}
                      </td>
                      <td>
                        <KindScores quality={q} short />
                      </td>
                      <td className="cmp-num">{f.tokens(p.tokensAfter)}</td>
                    </>
                  ) : (
                    <td colSpan={4} className="cmp-reason">
                      {t('notApplied')}: {p.reason ?? '—'}
                    </td>
                  )}
                  {onPick && (
                    <td>
                      {q && (
                        <button
                          type="button"
                          title={t('useTitle', { label: p.label })}
                          onClick={() => onPick(p.strategies)}
                        >
                          {t('usePipeline')}
                        </button>
                      )}
                    </td>
                  )}
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
    </div>
  );
}

/** The point's marker: a diamond for the configured pipeline, a circle for the others. */
function Marker({ isDefault = false }: { isDefault?: boolean }) {
  return (
    <svg width="14" height="14" viewBox="-7 -7 14 14" aria-hidden="true" className="cmp-marker">
      {isDefault ? (
        <path d="M0 -6 L6 0 L0 6 L-6 0 Z" className="cmp-plot-mark cmp-plot-mark-default" />
      ) : (
        <circle r="4.5" className="cmp-plot-mark" />
      )}
    </svg>
  );
}

export function StrategyPlot({
  layout,
  hot,
  axes,
}: {
  layout: PlotLayout;
  hot: string | null;
  /** Axis titles and the plot's name, where it plots something else than the strategies. */
  axes?: { x: string; y: string; aria: string };
}) {
  const t = useT(compactionStrings);
  const { area } = layout;
  const bottom = area.y + area.height;
  const right = area.x + area.width;
  // The default is drawn last, on top of any point at the same spot.
  const marks = [...layout.marks].sort((a, b) => Number(a.isDefault) - Number(b.isDefault));
  return (
    <svg
      className="cmp-plot"
      viewBox={`0 0 ${layout.width} ${layout.height}`}
      role="img"
      aria-label={axes?.aria ?? t('plotAria')}
    >
      <rect
        className="cmp-plot-area"
        x={area.x}
        y={area.y}
        width={area.width}
        height={area.height}
      />
      {layout.goal && (
        <rect
          className="cmp-plot-goal"
          x={layout.goal.x}
          y={layout.goal.y}
          width={layout.goal.width}
          height={layout.goal.height}
        />
      )}
      {layout.xTicks.map((tick) => (
        <g key={`x${tick.value}`}>
          <line className="cmp-plot-grid" x1={tick.at} x2={tick.at} y1={area.y} y2={bottom} />
          <text className="cmp-plot-tick" x={tick.at} y={bottom + 14} textAnchor="middle">
            {tick.value}
          </text>
        </g>
      ))}
      {layout.yTicks.map((tick) => (
        <g key={`y${tick.value}`}>
          <line className="cmp-plot-grid" x1={area.x} x2={right} y1={tick.at} y2={tick.at} />
          <text className="cmp-plot-tick" x={area.x - 6} y={tick.at + 3.5} textAnchor="end">
            {tick.value}
          </text>
        </g>
      ))}
      <text
        className="cmp-plot-axis"
        x={area.x + area.width / 2}
        y={layout.height - 8}
        textAnchor="middle"
      >
        {axes?.x ?? t('axisSaved')}
      </text>
      <text
        className="cmp-plot-axis"
        transform={`translate(14 ${area.y + area.height / 2}) rotate(-90)`}
        textAnchor="middle"
      >
        {axes?.y ?? t('axisKept')}
      </text>
      {layout.labels.map((label) => {
        // Several names for one spot: a bracket between the names and the point.
        if (label.lines.length < 2) return null;
        const x = label.anchor === 'end' ? label.box.x + label.box.width + 3 : label.box.x - 3;
        return (
          <line
            key={`bracket-${label.keys.join('|')}`}
            className="cmp-plot-bracket"
            x1={x}
            x2={x}
            y1={label.box.y + 2}
            y2={label.box.y + label.box.height - 2}
          />
        );
      })}
      {layout.labels.map(
        (label) =>
          label.leader && (
            <line
              key={`leader-${label.keys.join('|')}`}
              className="cmp-plot-leader"
              x1={label.leader.x1}
              y1={label.leader.y1}
              x2={label.leader.x2}
              y2={label.leader.y2}
            />
          ),
      )}
      {marks.map((mark) => (
        <g
          key={mark.key}
          className={`cmp-plot-point${mark.isDefault ? ' cmp-plot-point-default' : ''}${hot === mark.key ? ' cmp-plot-hot' : ''}`}
          data-label={mark.key}
          transform={`translate(${mark.cx} ${mark.cy})`}
        >
          <title>{mark.key}</title>
          {mark.isDefault ? (
            <path d="M0 -7 L7 0 L0 7 L-7 0 Z" className="cmp-plot-mark cmp-plot-mark-default" />
          ) : (
            <circle r="5" className="cmp-plot-mark" />
          )}
        </g>
      ))}
      {layout.labels.map((label) =>
        label.lines.map((line, i) => (
          <text
            key={line.key}
            className={`cmp-plot-label${line.isDefault ? ' cmp-plot-label-default' : ''}${hot === line.key ? ' cmp-plot-label-hot' : ''}`}
            x={label.anchor === 'start' ? label.box.x : label.box.x + label.box.width}
            y={label.box.y + (i + 1) * (label.box.height / label.lines.length) - 3.5}
            textAnchor={label.anchor}
          >
            {line.text}
          </text>
        )),
      )}
    </svg>
  );
}
