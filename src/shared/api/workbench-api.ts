import type { ApiResult } from './api-result';
import type { WorkbenchContract } from './contract';
import type { Unsubscribe, WorkbenchEvent } from './events';
import type { InputOf, OutputOf, ParsedInputOf } from './operation';
import type { OperationName } from './operation-names';

export type ApiInput<K extends OperationName> = InputOf<WorkbenchContract[K]>;
export type ApiParsedInput<K extends OperationName> = ParsedInputOf<WorkbenchContract[K]>;
export type ApiOutput<K extends OperationName> = OutputOf<WorkbenchContract[K]>;

/** An operation whose input fields are all optional may be called without an argument. */
type Method<K extends OperationName> =
  Record<never, never> extends ApiInput<K>
    ? (input?: ApiInput<K>) => Promise<ApiOutput<K>>
    : (input: ApiInput<K>) => Promise<ApiOutput<K>>;

export type EventListener = (event: WorkbenchEvent) => void;

/** What the UI programs against: one async method per operation, plus the live events. */
export type WorkbenchApi = { [K in OperationName]: Method<K> } & {
  onEvent(listener: EventListener): Unsubscribe;
};

/**
 * `window.api` as the preload exposes it: the same methods, each answering with the
 * result envelope (an error thrown through contextBridge would lose its code and field).
 */
export type WindowApi = {
  [K in OperationName]: (input?: ApiInput<K>) => Promise<ApiResult<ApiOutput<K>>>;
} & {
  onEvent(listener: EventListener): Unsubscribe;
};

/** What a host implements: each operation receives its input already validated. */
export type WorkbenchHandlers = {
  [K in OperationName]: (input: ApiParsedInput<K>) => Promise<ApiOutput<K>>;
};
