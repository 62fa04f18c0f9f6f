import { z } from 'zod';
import { operation } from './operation';

/** One source (an agent's session store) as Settings and `cwb sources` show it. */
export interface SourceStatus {
  id: string;
  label: string;
  enabled: boolean;
  /** Folders set in config.yaml (false: the agent's default folders). */
  configured: boolean;
  folders: { path: string; exists: boolean }[];
  /** Session files seen (synced at least once). */
  sessions: number;
  messages: number;
  /** ISO time of the newest sync of any of its files. */
  lastSync: string | null;
  errors: { path: string; error: string }[];
  errorCount: number;
  notices: { path: string; notice: string }[];
}

export interface SourcesStatus {
  configFile: string | null;
  watch: boolean;
  poll: boolean;
  sources: SourceStatus[];
}

export interface SyncSourcesResult {
  files: number;
  synced: number;
  messages: number;
  errors: { path: string; error: string }[];
  /** Files another live process was still syncing when this gave up waiting (not read). */
  busy: string[];
}

export const syncSourcesInput = z.strictObject({
  /** Only this source (e.g. "claude-code"); default: every enabled one. */
  source: z
    .string()
    .regex(/^[a-z][a-z0-9-]*$/, 'expected a source id like "claude-code"')
    .max(60)
    .optional(),
});

export const sourcesOperations = {
  listSources: operation(z.strictObject({})).returns<SourcesStatus>(),
  syncSources: operation(syncSourcesInput).returns<SyncSourcesResult>(),
};
