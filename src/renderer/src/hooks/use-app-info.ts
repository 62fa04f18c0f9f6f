import { useEffect, useState } from 'react';
import type { AppInfo } from '../../../shared/api/app-api';
import { useApi } from '../api/api-context';

export function useAppInfo(): AppInfo | null {
  const api = useApi();
  const [info, setInfo] = useState<AppInfo | null>(null);
  useEffect(() => {
    let live = true;
    api.appInfo().then(
      (value) => live && setInfo(value),
      () => undefined, // the task list shows the connection error
    );
    return () => {
      live = false;
    };
  }, [api]);
  return info;
}
