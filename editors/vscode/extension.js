// The Lore extension: starts `lore lsp` (the command is the setting lore.server.command)
// and hands it the Lore files of the workspace.
"use strict";

const vscode = require("vscode");
const { LanguageClient, TransportKind } = require("vscode-languageclient/node");

let client;

function activate(context) {
  const configured = vscode.workspace.getConfiguration("lore").get("server.command");
  const [command, ...args] = configured && configured.length ? configured : ["lore", "lsp"];
  const server = { command, args, transport: TransportKind.stdio };
  client = new LanguageClient(
    "lore",
    "Lore",
    { run: server, debug: server },
    {
      documentSelector: [{ scheme: "file", language: "lore" }],
      synchronize: {
        fileEvents: vscode.workspace.createFileSystemWatcher("**/*.lore"),
      },
    },
  );
  context.subscriptions.push(client);
  return client.start();
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };
