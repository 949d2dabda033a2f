import { ConfigError } from "../../errors.js";
import type { StepInput } from "./need.js";

export function runRemediate(_step: StepInput): Promise<number> {
  return Promise.reject(new ConfigError({ message: "usersync campaign remediate is not built yet." }));
}
