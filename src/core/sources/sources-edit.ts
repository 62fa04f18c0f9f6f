import fs from 'node:fs';
import path from 'node:path';
import { readConfigDocument } from '../api/settings-document';
import { badInput } from '../errors';
import { writeFileAtomic } from '../jsonl/atomic-write';
import { parseSourcesConfig, resolveFolder } from './sources-config';
import { sourceKind, sourceKinds } from './source-kinds';

export interface SourcesEdit {
  file: string;
  source: string;
  folders: string[];
  changed: boolean;
}

/**
 * Adds a folder to a source (or removes one) in config.yaml's `sources:` section. The
 * file is edited as a YAML document, so comments and other sections stay as written; the
 * list starts from the agent's default folders when the file had none for that source.
 */
export function editSourceFolders(
  file: string,
  source: string,
  folder: string,
  action: 'add' | 'remove',
  env: NodeJS.ProcessEnv = process.env,
): SourcesEdit {
  const kind = sourceKind(source);
  if (!kind) {
    throw badInput(
      `${source} is not a source; known sources: ${sourceKinds()
        .map((k) => k.id)
        .join(', ')}`,
    );
  }
  const doc = readConfigDocument(file);
  const current = parseSourcesConfig(doc.toString(), file, env).sources.find(
    (s) => s.id === source,
  )!;
  const target = resolveFolder(folder, process.cwd(), env);
  const has = current.folders.includes(target);
  if (action === 'add' && !fs.existsSync(target)) {
    throw badInput(`${target}: no such folder (a source folder must exist to be added)`);
  }
  const folders =
    action === 'add'
      ? has
        ? current.folders
        : [...current.folders, target]
      : current.folders.filter((f) => f !== target);
  if (action === 'remove' && !has) {
    throw badInput(
      `${target} is not a folder of ${source}; its folders: ${current.folders.join(', ') || '(none)'}`,
    );
  }
  const changed = folders.length !== current.folders.length || !current.configured;
  if (changed) {
    doc.setIn(['sources', source, 'folders'], folders);
    const text = doc.toString();
    parseSourcesConfig(text, file, env); // never write a file the next read would refuse
    fs.mkdirSync(path.dirname(file), { recursive: true });
    writeFileAtomic(file, text);
  }
  return { file, source, folders, changed };
}
