// Types for @clarvis/agent-tools/guard (ESM).
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
} from './index.js'
