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
  GuardContext,
  GuardDecision,
  Verdict,
  Guard,
  Elicit,
  ElicitRequest,
} from './index.js'
