// The names live in src/shared so the worker protocol and the UI can use them too.
export { STRATEGY_NAMES, isStrategyName, type StrategyName } from '../../shared/strategy-names';
