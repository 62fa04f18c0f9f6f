import { createContext, useContext, type ReactNode } from 'react';
import type { WorkbenchApi } from '../../../shared/api/workbench-api';

const ApiContext = createContext<WorkbenchApi | null>(null);

export function ApiProvider({ api, children }: { api: WorkbenchApi; children: ReactNode }) {
  return <ApiContext.Provider value={api}>{children}</ApiContext.Provider>;
}

/** The workbench API, whichever transport carries it. */
export function useApi(): WorkbenchApi {
  const api = useContext(ApiContext);
  if (!api) throw new Error('useApi outside ApiProvider');
  return api;
}
