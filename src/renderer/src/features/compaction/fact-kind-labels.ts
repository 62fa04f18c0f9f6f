import type { FactKind } from '../../../../shared/fact-kinds';
import type { CompactionStringKey } from './strings';

/** One fact's kind as a tag ("path") and a kind's facts as a group ("paths"), translated by strings.ts. */
export const FACT_TAG_KEYS: Record<FactKind, CompactionStringKey> = {
  instruction: 'factTagInstruction',
  path: 'factTagPath',
  command: 'factTagCommand',
  error: 'factTagError',
  number: 'factTagNumber',
  identifier: 'factTagIdentifier',
  url: 'factTagUrl',
};

export const FACT_GROUP_KEYS: Record<FactKind, CompactionStringKey> = {
  instruction: 'factGroupInstruction',
  path: 'factGroupPath',
  command: 'factGroupCommand',
  error: 'factGroupError',
  number: 'factGroupNumber',
  identifier: 'factGroupIdentifier',
  url: 'factGroupUrl',
};
