import type { CompactionReport } from '../../../../shared/api/compaction-api';
import { useT } from '../../i18n/use-t';
import { QualitySummary } from './quality-summary';
import { compactionStrings } from './strings';

/** A preview's or a run's steps: what each one does (or why it is skipped) and the total saving. */
export function CompactionReportView({ report }: { report: CompactionReport }) {
  const t = useT(compactionStrings);
  const saved = report.tokensBefore - report.tokensAfter;
  const percent = report.tokensBefore > 0 ? Math.round((saved / report.tokensBefore) * 100) : 0;
  return (
    <section className="cmp-report" aria-label={report.dryRun ? t('previewTitle') : t('runTitle')}>
      <h3>{report.dryRun ? t('previewTitle') : t('runTitle')}</h3>
      <p className="cmp-total">
        {saved > 0
          ? t('totalSaving', {
              before: report.tokensBefore,
              after: report.tokensAfter,
              saved: saved,
              percent,
              messages: report.contextMessages,
            })
          : t('noSaving')}
      </p>
      {report.quality && <QualitySummary quality={report.quality} label={t('qualityRun')} />}
      <p className="cmp-note">
        {report.summarizer === 'llm' ? t('summarizerLlm') : t('summarizerExtractive')}
        {report.steps.some((s) => s.estimated) && ` · ${t('estimatedSummary')}`}
      </p>
      {report.cancelled && <p className="cmp-field-error">{t('cancelled')}</p>}
      <ol className="cmp-report-steps">
        {report.steps.map((step, i) => (
          <li
            key={`${step.strategy}-${i}`}
            className={step.applied ? 'cmp-applied' : 'cmp-skipped'}
          >
            <div className="cmp-report-head">
              <code>{step.strategy}</code>
              <span className={`cmp-tag ${step.applied ? 'cmp-tag-added' : ''}`}>
                {step.applied ? t('stepApplied') : t('stepSkipped')}
              </span>
              <span className="cmp-msg-meta">
                {t('tokensBeforeAfter', { before: step.tokensBefore, after: step.tokensAfter })}
              </span>
            </div>
            {step.applied ? (
              <>
                <p className="cmp-report-line">
                  {[
                    step.replacedSeqs.length > 0 &&
                      t('stepGoes', { count: step.replacedSeqs.length }),
                    step.changedSeqs.length > 0 &&
                      t('stepChanged', { count: step.changedSeqs.length }),
                    step.created.length > 0 && t('stepAdds', { count: step.created.length }),
                  ]
                    .filter(Boolean)
                    .join(' · ')}
                  {step.replacedSeqs.length > 0 && (
                    <span className="cmp-seqs">
                      {' '}
                      — {t('stepSeqs', { seqs: seqRanges(step.replacedSeqs) })}
                    </span>
                  )}
                </p>
                {step.quality && <QualitySummary quality={step.quality} />}
              </>
            ) : (
              <p className="cmp-report-line cmp-reason">{step.reason}</p>
            )}
          </li>
        ))}
      </ol>
    </section>
  );
}

/** 1,2,3,7,8 → "1–3, 7–8": a summary can replace thousands of seqs. */
export function seqRanges(seqs: readonly number[]): string {
  const sorted = [...seqs].sort((a, b) => a - b);
  const parts: string[] = [];
  for (let i = 0; i < sorted.length;) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === sorted[j]! + 1) j++;
    parts.push(i === j ? String(sorted[i]) : `${sorted[i]}–${sorted[j]}`);
    i = j + 1;
  }
  return parts.join(', ');
}
