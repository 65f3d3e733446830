// Types for @clarvis/agent-tools/guard (CommonJS).
export {
  analyzeBash,
  buildGuardContext,
  withinWorkspace,
  touchesOutside,
  commandsIn,
  BashFacts,
  Segment,
  PathFact,
  MonitorFacts,
  InputFacts,
  GuardContext,
  GuardDecision,
  Verdict,
  Guard,
  Elicit,
  ElicitRequest,
} from './index'
