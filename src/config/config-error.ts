/** The one error a config with problems becomes, its problems in the order a person fixes them. */
import type { Problem } from "../errors.js";
import { ConfigError, formatProblem } from "../errors.js";

export /** Problems of the file first, in line order, then those of the environment and flags. */
function configError(unsorted: Problem[], configFile?: string): ConfigError {
  const rank = (p: Problem): number => (p.file === configFile ? 0 : p.file.startsWith("env ") ? 1 : 2);
  const problems = [...unsorted].sort((a, b) => rank(a) - rank(b) || (a.line ?? 0) - (b.line ?? 0));
  const lines = problems.map((p) => `  ${formatProblem(p)}`).join("\n");
  return new ConfigError({
    message: `invalid configuration (${problems.length} problem${problems.length === 1 ? "" : "s"}):\n${lines}`,
    problems,
  });
}
