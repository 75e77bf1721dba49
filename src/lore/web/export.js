// The session log as a file to keep or to put on a blog: what this seat was told (the
// rules' messages, rolls, chat, answers with the questions they answered), as an HTML page
// styled like the client, or as Markdown.

// The HTML page: the log's items as the client draws them (`items`: their elements), under
// the session's title, with the client's style sheet (`css`) inlined.
export function logHtml(title, language, items, css) {
  const escaped = escapeHtml(title);
  const lines = items.map((item) => `  ${item.outerHTML}`).join("\n");
  return `<!doctype html>
<html lang="${escapeHtml(language)}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escaped}</title>
<style>
${css}
body { max-width: 60em; margin: 1em auto; padding: 0 1em; }
.log { max-height: none; overflow: visible; }
</style>
</head>
<body>
<main class="export">
<h1>${escaped}</h1>
<ol class="log">
${lines}
</ol>
</main>
</body>
</html>
`;
}

// The Markdown: a heading, then a line per item of the log (its time, then its parts as
// the client shows them; pictures as Markdown images, a message's lines kept).
export function logMarkdown(title, items) {
  const lines = [`# ${escapeMarkdown(title)}`, ""];
  for (const item of items) {
    const parts = [];
    for (const part of item.children) {
      const said = markdownOf(part).trim();
      if (!said) continue;
      parts.push(part.classList.contains("tick") ? `**${said}**` : said);
    }
    lines.push(`- ${parts.join(" ").replace(/\n+/g, "  \n  ")}`);
  }
  return `${lines.join("\n")}\n`;
}

function markdownOf(element) {
  let found = "";
  for (const child of element.childNodes) {
    if (child.nodeType === Node.TEXT_NODE) found += escapeMarkdown(child.textContent);
    else if (child.nodeName === "IMG") found += `![${escapeMarkdown(child.alt || "")}](${child.src})`;
    else if (child.nodeName === "BR") found += "\n";
    else {
      const inner = markdownOf(child);
      const block = /^(P|DIV|LI|PRE|H\d)$/.test(child.nodeName);
      found += block ? `\n${inner}\n` : inner;
    }
  }
  return found;
}

function escapeHtml(text) {
  return String(text).replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]);
}

function escapeMarkdown(text) {
  return String(text).replace(/([\\`*_[\]<>|#])/g, "\\$1");
}

// Offer `text` as a download named `name`.
export function download(name, text, type) {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const link = document.createElement("a");
  link.href = url;
  link.download = name;
  document.body.appendChild(link);
  link.click();
  link.remove();
  URL.revokeObjectURL(url);
}

// A file name made of the session's title (what a file system refuses left out).
export function fileName(title, extension) {
  const base = String(title || "lore-session").replace(/[\\/:*?"<>|\u0000-\u001f]+/g, " ").trim();
  return `${base || "lore-session"}.${extension}`;
}
