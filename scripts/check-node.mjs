// The libraries we use (ai@7, vitest@5) declare Node >= 22. The project pins Node 22 as a
// dev dependency (the `node` package on npm), and npm scripts put node_modules/.bin first on
// PATH, so `npm run …` uses it even where the machine's own Node is older. This check makes
// a wrong runtime fail loudly instead of half-working.
const major = Number(process.versions.node.split(".")[0]);
if (major < 22) {
  console.error(
    `Node ${process.versions.node} is running, but this project needs Node >= 22.\n` +
      "Run it through npm scripts (npm run dev, npm test) after `npm install`, which use the\n" +
      "Node 22 from node_modules/.bin, or install Node 22 yourself.",
  );
  process.exit(1);
}
