// The TextMate grammar on the paper's samples (examples/paper): keywords, strings, long
// strings, units, comments; and dice, numbers and typed strings on a snippet.
"use strict";

const assert = require("node:assert/strict");
const fs = require("node:fs");
const path = require("node:path");
const oniguruma = require("vscode-oniguruma");
const textmate = require("vscode-textmate");

const here = path.join(__dirname, "..");
const repo = path.join(here, "..", "..");

async function grammar() {
  const wasm = fs.readFileSync(require.resolve("vscode-oniguruma/release/onig.wasm"));
  await oniguruma.loadWASM(wasm.buffer.slice(wasm.byteOffset, wasm.byteOffset + wasm.byteLength));
  const registry = new textmate.Registry({
    onigLib: Promise.resolve({
      createOnigScanner: (patterns) => new oniguruma.OnigScanner(patterns),
      createOnigString: (text) => new oniguruma.OnigString(text),
    }),
    loadGrammar: async () =>
      textmate.parseRawGrammar(
        fs.readFileSync(path.join(here, "syntaxes", "lore.tmLanguage.json"), "utf8"),
        "lore.tmLanguage.json",
      ),
  });
  return registry.loadGrammar("source.lore");
}

// Every token of a text: its line, its text and its innermost scope.
function tokens(lore, text) {
  const found = [];
  let state = textmate.INITIAL;
  text.split("\n").forEach((line, number) => {
    const result = lore.tokenizeLine(line, state);
    for (const token of result.tokens) {
      const scopes = token.scopes;
      found.push({
        line: number,
        text: line.slice(token.startIndex, token.endIndex),
        scope: scopes[scopes.length - 1],
        scopes,
      });
    }
    state = result.ruleStack;
  });
  return found;
}

function scopeOf(found, text, line) {
  const token = found.find((t) => t.text.trim() === text && (line === undefined || t.line === line));
  assert.ok(token, `no token ${JSON.stringify(text)}`);
  return token.scope;
}

function lineOf(text, needle) {
  const index = text.split("\n").findIndex((line) => line.includes(needle));
  assert.ok(index >= 0, needle);
  return index;
}

async function main() {
  const lore = await grammar();
  const rules = fs.readFileSync(path.join(repo, "examples", "paper", "rules.lore"), "utf8");
  const scenario = fs.readFileSync(path.join(repo, "examples", "paper", "scenario.lore"), "utf8");
  const r = tokens(lore, rules);
  const s = tokens(lore, scenario);

  // keywords
  assert.equal(scopeOf(r, "docinfo"), "keyword.other.lore");
  assert.equal(scopeOf(r, "import"), "keyword.other.lore");
  assert.equal(scopeOf(s, "section"), "storage.type.lore");
  assert.equal(scopeOf(r, "select"), "keyword.control.lore");
  assert.equal(scopeOf(r, "case"), "keyword.control.lore");
  assert.equal(scopeOf(r, "form"), "storage.type.lore");
  // strings, and a string's type
  assert.equal(scopeOf(r, '"UTF-8"'.slice(1, -1)), "string.quoted.double.lore");
  assert.equal(scopeOf(r, "url", 0), "storage.type.string.lore");
  // long strings: the XML of a map, across lines, up to its closing bracket
  const xml = lineOf(rules, "<geometry xmlns:xsi");
  assert.ok(r.filter((t) => t.line === xml).every((t) => t.scopes.includes("string.unquoted.long.lore")));
  const inner = lineOf(rules, "xsi:schemaLocation");
  assert.equal(r.find((t) => t.line === inner).scope, "string.unquoted.long.lore");
  // units
  assert.equal(scopeOf(r, "[km]"), "constant.other.unit.lore");
  // comments (Japanese text in them), a line one and a block one
  assert.equal(scopeOf(r, "// 基本型のインポート"), "comment.line.double-slash.lore");
  assert.ok(s.some((t) => t.scope === "comment.block.lore" && t.text.includes("初期化処理")));

  // dice, numbers and the rest on a snippet
  const snippet = tokens(
    lore,
    'section s {\n    pool = 3D6 + d + 4d8;\n    n = 12 + 0x1F + 2.5;\n    rule go { if (true) { r = GM.roll("2D6>=7"); } }\n}\n',
  );
  for (const die of ["3D6", "d", "4d8"]) {
    assert.equal(scopeOf(snippet, die), "constant.numeric.dice.lore", die);
  }
  assert.equal(scopeOf(snippet, "12"), "constant.numeric.lore");
  assert.equal(scopeOf(snippet, "0x1F"), "constant.numeric.hex.lore");
  assert.equal(scopeOf(snippet, "go"), "entity.name.function.lore");
  assert.equal(scopeOf(snippet, "true"), "constant.language.lore");
  assert.equal(scopeOf(snippet, "if"), "keyword.control.lore");
  assert.equal(scopeOf(snippet, "pool"), "source.lore"); // a plain name: no scope of its own
  console.log("grammar: all checks passed");
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
