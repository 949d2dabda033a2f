/** usersync's own version, from its package.json (src/ or dist/ layout). */
import { createRequire } from "node:module";

export function version(): string {
  const require = createRequire(import.meta.url);
  for (const candidate of ["../../package.json", "../package.json"]) {
    try {
      return (require(candidate) as { version: string }).version;
    } catch {
      // try the next layout (src/ or dist/)
    }
  }
  return "unknown";
}
