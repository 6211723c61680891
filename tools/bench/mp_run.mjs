// Run Python source under real MicroPython 1.27 (the WebAssembly port from npm) in Node.
//
// usage: node tools/bench/mp_run.mjs [--heap BYTES] [--mount HOSTDIR:/DIR ...] [--path /DIR ...] SCRIPT.py [ARG ...]
//
// Each --mount copies the *.py files of HOSTDIR (recursively) into the in-memory
// filesystem at /DIR; each --path is put first on sys.path. SCRIPT.py runs as __main__
// with sys.argv = [SCRIPT, ARG ...]. The exit code is the script's SystemExit code,
// 1 on an uncaught exception, 0 otherwise.
import fs from "node:fs";
import path from "node:path";
import { loadMicroPython } from "@micropython/micropython-webassembly-pyscript";

const args = process.argv.slice(2);
let heap = 256 * 1024;
const mounts = [];
const paths = [];
while (args.length && args[0].startsWith("--")) {
  const flag = args.shift();
  const value = args.shift();
  if (flag === "--heap") heap = parseInt(value, 10);
  else if (flag === "--mount") mounts.push(value.split(":"));
  else if (flag === "--path") paths.push(value);
  else throw new Error("unknown flag " + flag);
}
const script = args.shift();
if (!script) {
  console.error("usage: mp_run.mjs [--heap N] [--mount HOST:/DIR] [--path /DIR] SCRIPT.py [ARG ...]");
  process.exit(2);
}

const mp = await loadMicroPython({
  heapsize: heap,
  stdout: (line) => process.stdout.write(line + "\n"),
  stderr: (line) => process.stderr.write(line + "\n"),
});

function copyTree(hostDir, fsDir) {
  mp.FS.mkdirTree(fsDir);
  for (const entry of fs.readdirSync(hostDir, { withFileTypes: true })) {
    const src = path.join(hostDir, entry.name);
    const dst = fsDir + "/" + entry.name;
    if (entry.isDirectory()) {
      if (entry.name !== "__pycache__") copyTree(src, dst);
    } else if (entry.name.endsWith(".py") || entry.name.endsWith(".json")) {
      mp.FS.writeFile(dst, fs.readFileSync(src));
    }
  }
}
for (const [hostDir, fsDir] of mounts) copyTree(hostDir, fsDir);

const argv = [script, ...args];
const prelude =
  "import sys\n" +
  paths.map((p) => `sys.path.insert(0, ${JSON.stringify(p)})\n`).join("") +
  `sys.argv[:] = ${JSON.stringify(argv)}\n`;

let code = 0;
try {
  mp.runPython(prelude);
  mp.runPython(fs.readFileSync(script, "utf8"));
} catch (error) {
  if (error.name !== "PythonError") throw error;
  if (error.type === "SystemExit") {
    const m = /SystemExit:?\s*(\d+)/.exec(error.message);
    code = m ? parseInt(m[1], 10) : 0;
  } else {
    process.stderr.write(error.message + "\n");
    code = 1;
  }
}
process.exit(code);
