/**
 * `shape/no-import-cycle`: no import cycle among the modules of lib/, type-only imports
 * included. Two modules that need each other's declarations are one module in two files, even
 * when one side imports only types (every cycle lib/ had passed through a type-only import).
 * `import/no-cycle` is not used: it skips type-only imports by design, and on this repository
 * it took about thirty times as long as this rule (docs/architecture.md).
 *
 * Imports are read with the TypeScript compiler's parser and resolved with its resolver and the
 * project's tsconfig (so `@/lib/...` is followed like `../lib/...`). Only modules under
 * `<cwd>/lib/` are followed; a module's imports are cached by path, size and modification time.
 * The linted file's own imports are read from the text being linted, the others from disk.
 */
import fs from "node:fs";
import path from "node:path";
import ts from "typescript";

/** The project's compiler options, by tsconfig path. */
const compilerOptionsCache = new Map();

function compilerOptionsFor(cwd) {
  const configPath = path.join(cwd, "tsconfig.json");
  let options = compilerOptionsCache.get(configPath);
  if (!options) {
    const read = ts.readConfigFile(configPath, ts.sys.readFile);
    options = ts.parseJsonConfigFileContent(read.config ?? {}, ts.sys, cwd).options;
    compilerOptionsCache.set(configPath, options);
  }
  return options;
}

/** Every module specifier of a source text: imports (type-only too), re-exports and `import()` calls. */
function specifiersOf(fileName, text) {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, false, fileName.endsWith(".tsx") ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  const found = [];
  const visit = (node) => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      found.push({ specifier: node.moduleSpecifier.text, start: node.getStart(source), end: node.getEnd() });
      return;
    }
    if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword && node.arguments[0] && ts.isStringLiteral(node.arguments[0])) {
      found.push({ specifier: node.arguments[0].text, start: node.getStart(source), end: node.getEnd() });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** The lib/ module a specifier resolves to, or undefined (a package, or outside lib/). */
function resolveInLib(specifier, fromFile, cwd) {
  const resolved = ts.resolveModuleName(specifier, fromFile, compilerOptionsFor(cwd), ts.sys).resolvedModule;
  if (!resolved || resolved.isExternalLibraryImport || resolved.resolvedFileName.endsWith(".d.ts")) return undefined;
  const file = path.resolve(resolved.resolvedFileName);
  return file.startsWith(path.join(cwd, "lib") + path.sep) ? file : undefined;
}

/** The lib/ modules a module imports, read from disk. */
const edgeCache = new Map();

function edgesOnDisk(file, cwd) {
  let stat;
  try {
    stat = fs.statSync(file);
  } catch {
    return [];
  }
  const key = `${stat.size}:${stat.mtimeMs}`;
  const cached = edgeCache.get(file);
  if (cached && cached.key === key) return cached.edges;
  const edges = specifiersOf(file, fs.readFileSync(file, "utf8"))
    .map(({ specifier }) => resolveInLib(specifier, file, cwd))
    .filter((target) => target !== undefined);
  edgeCache.set(file, { key, edges });
  return edges;
}

/** A route from `start` back to `goal` (the files on it, start first), or undefined. */
function routeBack(start, goal, cwd) {
  const previous = new Map([[start, undefined]]);
  const queue = [start];
  while (queue.length > 0) {
    const file = queue.shift();
    if (file === goal) {
      const route = [];
      for (let step = file; step !== undefined; step = previous.get(step)) route.unshift(step);
      return route;
    }
    for (const target of edgesOnDisk(file, cwd)) {
      if (previous.has(target)) continue;
      previous.set(target, file);
      queue.push(target);
    }
  }
  return undefined;
}

const rule = {
  meta: {
    type: "problem",
    docs: { description: "Disallow import cycles among the modules of lib/, type-only imports included." },
    schema: [],
    messages: {
      cycle: "Import cycle: {{route}}. Move what both need into the lower module, or into a small types file both import.",
    },
  },
  create(context) {
    const cwd = context.cwd;
    const file = path.resolve(context.filename);
    return {
      "Program:exit"() {
        const sourceCode = context.sourceCode;
        for (const { specifier, start, end } of specifiersOf(file, sourceCode.text)) {
          const target = resolveInLib(specifier, file, cwd);
          if (!target || target === file) continue;
          const route = routeBack(target, file, cwd);
          if (!route) continue;
          const names = [file, ...route].map((step) => path.relative(cwd, step));
          context.report({
            loc: { start: sourceCode.getLocFromIndex(start), end: sourceCode.getLocFromIndex(end) },
            messageId: "cycle",
            data: { route: names.join(" → ") },
          });
        }
      },
    };
  },
};

const shapePlugin = { meta: { name: "shape" }, rules: { "no-import-cycle": rule } };

export default shapePlugin;
