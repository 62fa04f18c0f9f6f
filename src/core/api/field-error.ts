import { CwbError } from '../errors';

/** Bad input in one field the UI can point at (`patch.compaction.threshold_ratio`). */
export class FieldError extends CwbError {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super('bad_input', message);
    this.name = 'FieldError';
  }
}
