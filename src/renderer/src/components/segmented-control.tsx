/** A small group of mutually exclusive buttons (theme, language). */
export function SegmentedControl<V extends string>(props: {
  label: string;
  value: V;
  options: { value: V; label: string }[];
  onChange(value: V): void;
  name: string;
}) {
  return (
    <div className="segmented" role="group" aria-label={props.label} data-name={props.name}>
      {props.options.map((o) => (
        <button
          key={o.value}
          type="button"
          aria-pressed={o.value === props.value}
          data-value={o.value}
          onClick={() => props.onChange(o.value)}
        >
          {o.label}
        </button>
      ))}
    </div>
  );
}
