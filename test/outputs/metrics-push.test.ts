import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { pino } from "pino";
import { Writable } from "node:stream";
import { pushPath, runMetrics } from "../../src/outputs/index.js";
import { startFakePushgateway } from "../helpers/fake-pushgateway.js";

function captureLogger(): { logger: pino.Logger; lines: () => Record<string, unknown>[] } {
  let text = "";
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      text += chunk.toString();
      done();
    },
  });
  const logger = pino({ base: null }, stream);
  return {
    logger,
    lines: () =>
      text
        .split("\n")
        .filter((l) => l !== "")
        .map((l) => JSON.parse(l) as Record<string, unknown>),
  };
}

describe("pushing a run's metrics to a Pushgateway", () => {
  let gateway: Awaited<ReturnType<typeof startFakePushgateway>>;
  beforeEach(async () => {
    gateway = await startFakePushgateway();
  });
  afterEach(async () => {
    await gateway.close();
  });

  it("POSTs the text exposition format to /metrics/job/<job>/<label>/<value>", async () => {
    const log = captureLogger();
    const metrics = runMetrics("apply", {
      push: { url: gateway.url, job: "usersync", grouping: ["cronjob=usersync sync", "namespace=iam"] },
      logger: log.logger,
    });
    expect(await metrics.finish(0)).toBe(0);
    expect(gateway.pushes).toHaveLength(1);
    const push = gateway.pushes[0]!;
    expect(push.method).toBe("POST");
    expect(push.path).toBe("/metrics/job/usersync/cronjob/usersync%20sync/namespace/iam");
    expect(push.contentType).toMatch(/^text\/plain; version=0\.0\.4/);
    const byName = new Map(push.samples.map((s) => [s.name, s]));
    expect(byName.get("usersync_last_exit_code")).toMatchObject({ labels: { command: "apply" }, value: 0 });
    expect(byName.get("usersync_last_success_timestamp_seconds")?.value).toBeGreaterThan(1_600_000_000);
    expect(log.lines().some((l) => l["msg"] === "metrics pushed")).toBe(true);
  });

  it("a failed run pushes its exit code and no last-success time (POST keeps the earlier one)", async () => {
    const metrics = runMetrics("plan", {
      push: { url: `${gateway.url}/`, job: "usersync-audit", grouping: [] },
      logger: captureLogger().logger,
    });
    expect(await metrics.finish(1)).toBe(1);
    const push = gateway.pushes[0]!;
    expect(push.path).toBe("/metrics/job/usersync-audit");
    expect(push.samples.find((s) => s.name === "usersync_last_exit_code")?.value).toBe(1);
    expect(push.samples.some((s) => s.name === "usersync_last_success_timestamp_seconds")).toBe(false);
  });

  it("a push that fails is a warning and leaves the exit code alone", async () => {
    await gateway.close();
    const log = captureLogger();
    const metrics = runMetrics("apply", {
      push: { url: gateway.url, job: "usersync", grouping: [] },
      logger: log.logger,
    });
    expect(await metrics.finish(1)).toBe(1);
    const warning = log.lines().find((l) => l["level"] === 40);
    expect(warning?.["msg"]).toMatch(/metrics push failed.*exit code is unchanged/);
    gateway = await startFakePushgateway();
  });

  it("a rejected push (non-2xx) is a warning too", async () => {
    const log = captureLogger();
    const metrics = runMetrics("apply", {
      push: { url: `${gateway.url}/nowhere`, job: "usersync", grouping: [] },
      logger: log.logger,
    });
    expect(await metrics.finish(0)).toBe(0);
    expect(log.lines().find((l) => l["level"] === 40)).toMatchObject({ status: 404 });
  });

  it("grouping labels must be name=value", () => {
    expect(() => pushPath({ url: "http://x", job: "j", grouping: ["1bad=x"] })).toThrow(/name=value/);
  });
});
