import { useEffect, useRef, type FormEvent, type ReactNode } from 'react';
import { useT } from '../i18n/use-t';
import { dialogStrings } from './dialog-strings';

/**
 * A modal built on <dialog>: the browser gives focus trapping, Esc and the backdrop.
 * Rendered only while open, so each opening starts from a fresh form.
 */
export function ModalDialog(props: {
  title: string;
  onClose(): void;
  onSubmit?(e: FormEvent<HTMLFormElement>): void;
  children: ReactNode;
  footer: ReactNode;
  className?: string;
}) {
  const t = useT(dialogStrings);
  const ref = useRef<HTMLDialogElement>(null);
  const { onClose } = props;
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (!dialog.open) dialog.showModal();
    const onCancel = (e: Event): void => {
      e.preventDefault();
      onClose();
    };
    dialog.addEventListener('cancel', onCancel);
    return () => dialog.removeEventListener('cancel', onCancel);
  }, [onClose]);
  return (
    <dialog ref={ref} className={`modal ${props.className ?? ''}`} aria-labelledby="modal-title">
      <form
        method="dialog"
        onSubmit={(e) => {
          e.preventDefault();
          props.onSubmit?.(e);
        }}
      >
        <header className="modal-head">
          <h2 id="modal-title">{props.title}</h2>
          <button
            type="button"
            className="icon-button"
            aria-label={t('close')}
            title={t('close')}
            onClick={onClose}
          >
            ×
          </button>
        </header>
        <div className="modal-body">{props.children}</div>
        <footer className="modal-foot">{props.footer}</footer>
      </form>
    </dialog>
  );
}
