// The editor: the text is checked as you type (the server compiles it as `rulespec validate` does).
"use strict";
const Editor = { bad: new Map(), checking: 0 };

Editor.gutter = function () {
  const source = document.getElementById("source");
  const gutter = document.getElementById("gutter");
  const count = source.value.split("\n").length;
  const lines = [];
  for (let i = 1; i <= count; i++) {
    const problem = Editor.bad.get(i);
    lines.push(RS.el("div", { class: problem ? "bad" : "", "data-line": String(i), title: problem || "", text: String(i) }));
  }
  gutter.replaceChildren(...lines);
  gutter.scrollTop = source.scrollTop;
};

Editor.goto = function (line, col) {
  const source = document.getElementById("source");
  const lines = source.value.split("\n");
  let offset = 0;
  for (let i = 0; i < line - 1 && i < lines.length; i++) offset += lines[i].length + 1;
  offset += Math.max(0, col - 1);
  source.focus();
  source.setSelectionRange(offset, offset);
  source.scrollTop = Math.max(0, (line - 5) * 18);
};

Editor.check = async function () {
  const ticket = ++Editor.checking;
  const source = document.getElementById("source");
  let result;
  try {
    result = await RS.api("POST", "/api/validate", { text: source.value, base: document.getElementById("base").value || null });
  } catch (error) {
    document.getElementById("summary").textContent = error.message;
    return;
  }
  if (ticket !== Editor.checking) return; // an older answer
  Editor.bad = new Map();
  const list = document.getElementById("problems");
  list.replaceChildren();
  for (const d of result.diagnostics) {
    if (d.line > 0 && !Editor.bad.has(d.line)) Editor.bad.set(d.line, d.message);
    const item = RS.el("li", { class: "error", "data-line": String(d.line), "data-col": String(d.col) },
      RS.el("pre", { text: d.text }));
    if (d.line > 0) item.addEventListener("click", () => Editor.goto(d.line, d.col));
    list.append(item);
  }
  document.getElementById("summary").textContent = result.summary;
  document.getElementById("summary").setAttribute("data-ok", result.ok ? "1" : "0");
  document.getElementById("describe").textContent = result.ok ? result.describe : "(the rules show when the text is valid)";
  Editor.showDiff(result);
  Editor.gutter();
};

// What the text changes in its base (the spec it `extends`, else the spec loaded), as `rulespec diff` says it.
Editor.showDiff = function (result) {
  const box = document.getElementById("diff");
  const diff = result.ok ? result.diff : null;
  if (!result.ok) box.textContent = "(the changes show when the text is valid)";
  else if (!diff) box.textContent = "(no base to compare with: load a spec, or write `extends:`)";
  else if (diff.problem) box.textContent = diff.problem;
  else box.textContent = diff.text;
};

Editor.load = async function () {
  const id = document.getElementById("base").value;
  if (!id) return;
  const data = await RS.api("GET", "/api/specs/" + encodeURIComponent(id) + "/text");
  document.getElementById("source").value = data.text;
  Editor.gutter();
  Editor.check();
};

Editor.play = async function () {
  const message = document.getElementById("message");
  message.textContent = "";
  const players = document.getElementById("players").value.trim();
  try {
    const request = { text: document.getElementById("source").value, spec: document.getElementById("base").value || null, hot_seat: true };
    if (players) request.players = Number(players);
    const links = await RS.api("POST", "/api/matches", request);
    location.href = "/t/" + links.hot_seat;
  } catch (error) {
    message.textContent = error.message;
  }
};

document.addEventListener("DOMContentLoaded", async () => {
  const source = document.getElementById("source");
  const check = RS.debounce(Editor.check, 350);
  source.addEventListener("input", () => { Editor.gutter(); check(); });
  source.addEventListener("scroll", () => { document.getElementById("gutter").scrollTop = source.scrollTop; });
  document.getElementById("load").addEventListener("click", Editor.load);
  document.getElementById("play").addEventListener("click", Editor.play);
  const data = await RS.api("GET", "/api/specs");
  const base = document.getElementById("base");
  base.replaceChildren(...data.specs.map((s) => RS.el("option", { value: s.id, text: s.file })));
  const wanted = new URLSearchParams(location.search).get("spec");
  if (wanted && data.specs.some((s) => s.id === wanted)) base.value = wanted;
  if (data.specs.length) await Editor.load();
  else Editor.gutter();
});
