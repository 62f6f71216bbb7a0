// Loaded into the benchmark's app servers through NODE_OPTIONS=--require: ends the server once
// the benchmark that started it is gone (even after SIGKILL), so that no server outlives a run.
const parent = process.ppid;
setInterval(() => {
  if (process.ppid !== parent) process.exit(0);
}, 1000).unref();
