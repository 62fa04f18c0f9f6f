import type { TaskStatus } from '../../../../shared/task-types';

export interface FilterValues {
  search: string;
  status: TaskStatus[];
  repo: string;
  user: string;
  model: string;
  /** The agent (tasks.agent); '' = any. */
  agent: string;
  /** The host holding the task; '' = any. */
  host: string;
  /** yyyy-mm-dd from the date inputs, '' when unset. */
  from: string;
  to: string;
}

export const NO_FILTERS: FilterValues = {
  search: '',
  status: [],
  repo: '',
  user: '',
  model: '',
  agent: '',
  host: '',
  from: '',
  to: '',
};
