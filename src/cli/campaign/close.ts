import { ConfigError } from "../../errors.js";
import type { StepInput } from "./need.js";

export function runClose(_step: StepInput): Promise<number> {
  return Promise.reject(new ConfigError({ message: "usersync campaign close is not built yet." }));
}
