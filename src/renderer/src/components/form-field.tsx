import type { ReactNode } from 'react';

/** A label, its control, a hint, and the validation error right next to the field. */
export function FormField(props: {
  label: string;
  hint?: string;
  error?: string | undefined;
  children: ReactNode;
  name: string;
}) {
  return (
    <label className="field" data-field={props.name}>
      <span>{props.label}</span>
      {props.children}
      {props.error ? (
        <span className="field-error" role="alert">
          {props.error}
        </span>
      ) : (
        props.hint && <span className="field-hint">{props.hint}</span>
      )}
    </label>
  );
}
