// A CommonJS consumer of the /guard entry.
import guard = require('@clarvis/agent-tools/guard')

export function allowed(command: string): boolean {
  const facts: guard.BashFacts = guard.analyzeBash(command)
  return guard.commandsIn(facts, ['npm test'])
}
