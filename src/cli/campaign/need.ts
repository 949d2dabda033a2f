/** The options a campaign step cannot do without, refused up front with the step's usage (exit 4). */
import { ConfigError } from "../../errors.js";
import type { ParsedValues } from "../args.js";
import { stringOption } from "../args.js";
import type { Runtime } from "../pipeline.js";

export interface StepInput {
  values: ParsedValues;
  /** decide's decisions files. */
  files: string[];
  runtime: Runtime;
}

export function need(step: StepInput, name: string, action: string, usage: string): string {
  const v = stringOption(step.values, name);
  if (v === undefined)
    throw new ConfigError({
      message: `usersync campaign ${action} needs --${name} FILE: ${usage}. See usersync campaign --help.`,
    });
  return v;
}

export const maybe = (step: StepInput, name: string): string | undefined => stringOption(step.values, name);
