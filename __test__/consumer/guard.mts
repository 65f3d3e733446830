// An ESM consumer of the guard options and the /guard entry.
import { createAgentTools, type GuardContext, type GuardDecision } from '@clarvis/agent-tools'
import { analyzeBash, commandsIn, touchesOutside, withinWorkspace, buildGuardContext } from '@clarvis/agent-tools/guard'

export function make(workspaceRoot: string) {
  const tools = createAgentTools({
    workspaceRoot,
    guard: async (ctx: GuardContext): Promise<GuardDecision> => {
      if (ctx.bash && !commandsIn(ctx.bash, ['npm test', 'git status'])) return { verdict: 'ask', reason: 'not an allowed command' }
      return touchesOutside(ctx) ? { verdict: 'deny', reason: 'outside the workspace' } : { verdict: 'allow' }
    },
    elicit: (req) => req.tool !== 'bash',
    guardTimeoutMs: 5000,
  })
  const facts = analyzeBash('ls -la')
  const decidable: boolean = facts.segments[0]!.decidable
  // @ts-expect-error a verdict is one of three strings
  const bad: GuardDecision = { verdict: 'maybe' }
  void bad
  const ctx = buildGuardContext('read_file', { path: 'a' }, tools.config)
  return [decidable, withinWorkspace(ctx)]
}
