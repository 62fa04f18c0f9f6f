import { SegmentedControl } from '../../components/segmented-control';
import { useT } from '../../i18n/use-t';
import type { UsagePeriod } from '../../router/route';
import { DayField } from '../browser/day-field';
import { usageStrings } from './strings';
import type { UsageView } from './usage-period';

/** Period (last 7 / 30 days, all, custom days), grouping and what the bars are split by. */
export function UsageControls({
  view,
  onChange,
}: {
  view: UsageView;
  onChange(view: UsageView): void;
}) {
  const t = useT(usageStrings);
  const set = (patch: Partial<UsageView>): void => onChange({ ...view, ...patch });
  return (
    <div className="usage-controls">
      <SegmentedControl<UsagePeriod>
        name="usage-period"
        label={t('period')}
        value={view.period}
        onChange={(period) => set({ period })}
        options={[
          { value: 'week', label: t('week') },
          { value: 'month', label: t('month') },
          { value: 'all', label: t('all') },
          { value: 'custom', label: t('custom') },
        ]}
      />
      {view.period === 'custom' && (
        <span className="usage-days">
          <DayField
            name="usage-since"
            label={t('from')}
            fullLabel={t('fromFull')}
            value={view.since ?? ''}
            max={view.until ?? undefined}
            onChange={(since) => since && set({ since })}
          />
          <DayField
            name="usage-until"
            label={t('to')}
            fullLabel={t('toFull')}
            value={view.until ?? ''}
            min={view.since ?? undefined}
            onChange={(until) => until && set({ until })}
          />
        </span>
      )}
      <span className="usage-control">
        <span className="usage-control-label">{t('by')}</span>
        <SegmentedControl<UsageView['by']>
          name="usage-by"
          label={t('by')}
          value={view.by}
          onChange={(by) => set({ by })}
          options={[
            { value: 'day', label: t('byDay') },
            { value: 'week', label: t('byWeek') },
            { value: 'month', label: t('byMonth') },
          ]}
        />
      </span>
      <span className="usage-control">
        <span className="usage-control-label">{t('split')}</span>
        <SegmentedControl<UsageView['split']>
          name="usage-split"
          label={t('split')}
          value={view.split}
          onChange={(split) => set({ split })}
          options={[
            { value: 'model', label: t('splitModel') },
            { value: 'agent', label: t('splitAgent') },
          ]}
        />
      </span>
    </div>
  );
}
