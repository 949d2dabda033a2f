// The emulator in a worker thread for the benchmarks (see `startEmulatorWorker` in lib.mjs):
// on 2 cores the engine and the emulator then use one core each instead of sharing one loop.
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { parentPort, workerData } from "node:worker_threads";

const { startEmulator } = await import(pathToFileURL(join(workerData.dist, "emulator", "index.js")).href);
const emulator = await startEmulator({ port: 0, ...workerData.options });
parentPort.postMessage({ url: emulator.url });
parentPort.on("message", async (m) => {
  if (m.op === "counters") parentPort.postMessage({ counters: emulator.counters() });
  if (m.op === "close") {
    await emulator.close();
    parentPort.postMessage({ closed: true });
  }
});
