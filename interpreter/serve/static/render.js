// Draws one seat's view (what the server sent: the engine's projection) into the page.
// Every clickable cell, piece or card says what clicking it does (the action's label, on hover
// and in the list of moves); pieces carry the names the log gives them; the step of a turn is
// named by its actions (and the spec's description of each); events read as `rulespec play`
// prints them.
"use strict";
const COLOURS = ["#d1495b", "#2e86ab", "#3c9d5d", "#b8860b", "#7b4ea3", "#00798c", "#a05a2c", "#555"];
const Render = {};
const MAX_MOVES_SHOWN = 300;

Render.cardsOf = function (view) {
  // a zone's view -> [{name} | {back} | {count}]
  if (Array.isArray(view)) return view.map((name) => (name === null ? { back: true } : { name }));
  if (view && typeof view === "object") {
    const out = [];
    if ("top" in view) {
      if (view.top) out.push({ name: view.top });
      const rest = view.count - (view.top ? 1 : 0);
      if (rest > 0) out.push({ count: rest });
      return out;
    }
    for (const name of view.cards || []) out.push({ name });
    const unseen = view.count - (view.cards || []).length;
    if (unseen > 0) out.push({ count: unseen });
    return out;
  }
  return [];
};

Render.pieceName = function (layout, id) {
  return (layout.pieces || [])[id] || "a piece";
};

Render.pieceMark = function (layout, piece) {
  // the short mark drawn on a piece: its number when the log numbers it ("pawn 2" -> 2), else its kind's initial
  const name = Render.pieceName(layout, piece.id);
  const number = /(\d+)$/.exec(name);
  return number ? number[1] : (piece.piece || "?").slice(0, 1).toUpperCase();
};

Render.targets = function (actions) {
  const out = { cells: {}, cards: {}, free: [], owned: new Set() };
  for (const action of actions || []) {
    const t = action.target;
    if (t && t.kind === "cell") (out.cells[t.name] = out.cells[t.name] || []).push(action);
    else if (t && t.kind === "card") (out.cards[t.name] = out.cards[t.name] || []).push(action);
    else out.free.push(action);
  }
  return out;
};

Render.says = function (actions) {
  // what a click on a target does, in words
  if (actions.length === 1) return "click: " + actions[0].label;
  return "click to choose:\n" + actions.map((a) => "\u2022 " + a.label).join("\n");
};

Render.mark = function (node, actions, kind, key, choose) {
  node.setAttribute("data-target", kind);
  node.setAttribute("data-key", key);
  node.classList.add("target");
  node.setAttribute("tabindex", "0");
  node.setAttribute("role", "button");
  node.setAttribute("aria-label", Render.says(actions));
  const tip = kind === "cell" ? RS.svg("title", { text: Render.says(actions) }) : null;
  if (tip) node.prepend(tip); else node.setAttribute("title", Render.says(actions));
  node.addEventListener("click", () => choose(actions));
  node.addEventListener("keydown", (e) => { if (e.key === "Enter" || e.key === " ") { e.preventDefault(); choose(actions); } });
};

Render.card = function (item, targets, choose, own) {
  if (item.back) return RS.el("span", { class: "card back", title: "face down", text: "?" });
  if (item.count !== undefined) return RS.el("span", { class: "card back count", title: item.count + " cards you cannot see", text: "\u00d7" + item.count });
  // a card action is offered on the viewer's own copies when it holds one, else on every copy shown
  const actions = own || !targets.owned.has(item.name) ? targets.cards[item.name] : undefined;
  const node = RS.el("span", { class: "card", "data-card": item.name, text: item.name });
  if (actions) Render.mark(node, actions, "card", item.name, choose);
  return node;
};

Render.fit = function (text, chars) {
  return text.length <= chars ? text : text.slice(0, chars - 1) + "\u2026";
};

Render.board = function (payload, targets, choose) {
  const layout = payload.layout;
  const board = layout.board;
  const view = payload.view;
  const size = Math.max(44, Math.min(72, Math.floor(520 / Math.max(board.cols, board.rows))));
  const chars = Math.max(4, Math.floor((size - 10) / 6));
  const svg = RS.svg("svg", { class: "board", width: board.cols * size + 4, height: board.rows * size + 4,
    viewBox: "0 0 " + (board.cols * size + 4) + " " + (board.rows * size + 4), role: "img",
    "aria-label": "the board" });
  const cellZones = layout.zones.filter((z) => z.kind === "cell");
  for (let r = 0; r < board.rows; r++) {
    for (let c = 0; c < board.cols; c++) {
      const name = board.cells[r * board.cols + c];
      const x = 2 + c * size, y = 2 + r * size;
      const actions = targets.cells[name];
      const g = RS.svg("g", { "data-cell": name });
      g.append(RS.svg("rect", { class: "cell", x, y, width: size - 2, height: size - 2,
        fill: (r + c) % 2 ? "#e9e4d8" : "#f7f3ea", stroke: "#998" }));
      g.append(RS.svg("text", { class: "cell-name", x: x + 3, y: y + 10, text: name }));
      let line = 0;
      for (const zone of cellZones) {
        const items = Render.cardsOf((view.zones[zone.name] || {})[name]);
        if (!items.length || line > 1) continue;
        const top = items[items.length - 1];
        const label = top.name || (top.back ? "face down" : "\u00d7" + top.count);
        const more = items.length > 1 ? " +" + (items.length - 1) : "";
        g.append(RS.svg("rect", { x: x + 3, y: y + 13 + line * 15, width: size - 8, height: 14, rx: 3,
          fill: top.name ? "#fff" : "#34508a", stroke: "#556", "data-card": top.name || "" }));
        g.append(RS.svg("text", { class: "cell-card", x: x + 6, y: y + 24 + line * 15, fill: top.name ? "#000" : "#fff",
          text: Render.fit(label + more, chars) }));
        line++;
      }
      const piece = (view.board || {})[name];
      if (piece) {
        const colour = COLOURS[piece.owner >= 0 ? piece.owner % COLOURS.length : 7];
        const radius = Math.min(11, size / 5);
        const mark = RS.svg("g", { "data-piece": String(piece.id), "data-piece-name": Render.pieceName(layout, piece.id) });
        mark.append(RS.svg("title", { text: Render.pieceName(layout, piece.id) }));
        mark.append(RS.svg("circle", { cx: x + size / 2, cy: y + size - radius - 4, r: radius, fill: colour, stroke: "#222" }));
        mark.append(RS.svg("text", { class: "piece-mark", x: x + size / 2, y: y + size - radius, "text-anchor": "middle",
          fill: "#fff", text: Render.pieceMark(layout, piece) }));
        g.append(mark);
      }
      if (actions) Render.mark(g, actions, "cell", name, choose);
      svg.append(g);
    }
  }
  return svg;
};

Render.zoneBox = function (zone, title, items, targets, choose, own, seat) {
  const attrs = { class: "zone", "data-zone": zone.name };
  if (seat !== undefined) attrs["data-seat"] = String(seat);
  const cards = items.length ? items.map((i) => Render.card(i, targets, choose, own)) : [RS.el("span", { class: "muted", text: "empty" })];
  return RS.el("div", attrs, RS.el("div", { class: "label", text: title }), RS.el("div", { class: "cards" }, ...cards));
};

Render.zones = function (payload, targets, choose) {
  const layout = payload.layout;
  const view = payload.view;
  const box = RS.el("div", { class: "zones" });
  layout.zones.forEach((zone) => {
    if (zone.kind === "cell" && layout.board) return;
    const value = view.zones[zone.name];
    if (zone.kind === "player") {
      if ((value || []).every((pview) => !Render.cardsOf(pview).length)) {
        box.append(RS.el("div", { class: "zone", "data-zone": zone.name }, RS.el("div", { class: "label", text: zone.label + " \u2013 every seat" }),
          RS.el("div", { class: "cards" }, RS.el("span", { class: "muted", text: "empty" }))));
        return;
      }
      (value || []).forEach((pview, p) => {
        const who = layout.seats[p] + (p === payload.you ? " (you)" : "");
        box.append(Render.zoneBox(zone, zone.label + " \u2013 " + who, Render.cardsOf(pview), targets, choose, p === payload.you, p));
      });
    } else if (zone.kind === "cell") {
      for (const [cell, cview] of Object.entries(value || {})) {
        box.append(Render.zoneBox(zone, zone.label + " " + cell, Render.cardsOf(cview), targets, choose, false));
      }
    } else {
      box.append(Render.zoneBox(zone, zone.label, Render.cardsOf(value), targets, choose, false));
    }
  });
  return box;
};

Render.scores = function (payload) {
  const table = RS.el("table", { class: "grid", id: "scores" });
  table.append(RS.el("tr", {}, RS.el("th", { text: "seat" }), RS.el("th", { text: "who" }), RS.el("th", { text: "round" }),
    RS.el("th", { text: "total" })));
  for (const p of payload.view.players) {
    const seat = (payload.seats || [])[p.seat] || {};
    const mark = payload.deciding === p.seat ? " \u25c0" : "";
    table.append(RS.el("tr", { class: p.seat === payload.you ? "seat-you" : "" },
      RS.el("td", { text: p.name + mark }), RS.el("td", { text: (seat.kind || "") + (p.seat === payload.you ? " (you)" : "") }),
      RS.el("td", { text: RS.text(p.score) }), RS.el("td", { text: RS.text(p.total) })));
  }
  return table;
};

Render.values = function (payload) {
  // the spec's other variables, per seat and shared, for who wants them
  const rows = [];
  for (const p of payload.view.players) {
    const extra = Object.entries(p).filter(([k]) => !["seat", "name", "score", "total"].includes(k));
    if (extra.length) rows.push(RS.el("div", { text: p.name + ": " + extra.map(([k, v]) => k.replace(/_/g, " ") + " " + RS.text(v)).join(", ") }));
  }
  const shared = Object.entries(payload.view.variables || {});
  if (shared.length) rows.push(RS.el("div", { text: shared.map(([k, v]) => k.replace(/_/g, " ") + ": " + RS.text(v)).join(" \u00b7 ") }));
  if (!rows.length) return null;
  return RS.el("details", { class: "values" }, RS.el("summary", { text: "Other values" }), ...rows);
};

Render.deciding = function (payload) {
  const seats = payload.layout.seats;
  if (payload.deciding === "chance") return "Chance is drawing.";
  if (payload.deciding === null || payload.deciding === undefined) return "";
  return seats[payload.deciding] + " to play.";
};

Render.stepText = function (step) {
  // "block: first move your blocker" / "Choose: declare, concede or move"
  if (!step || !step.actions.length) return "";
  const names = step.actions.map((n) => n.replace(/_/g, " "));
  const parts = step.actions.map((n) => (step.about[n] ? n.replace(/_/g, " ") + ": " + step.about[n] : null)).filter(Boolean);
  if (parts.length) return parts.join(" Or ");
  return names.length === 1 ? "Your move: " + names[0] + "." : "Your move: " + names.slice(0, -1).join(", ") + " or " + names[names.length - 1] + ".";
};

Render.status = function (payload) {
  const v = payload.view;
  const seats = payload.layout.seats;
  let text = payload.layout.game + " \u2013 round " + v.round + ", turn " + v.turn + ". ";
  if (payload.over) {
    const winners = (v.winners || []).map((w) => seats[w]);
    text += "Match over. Winner" + (winners.length === 1 ? "" : "s") + ": " + (winners.join(", ") || "nobody") + ".";
  } else if (payload.you >= 0 && payload.deciding === payload.you && payload.actions.length) text += "Your turn.";
  else text += Render.deciding(payload);
  if (payload.you >= 0) text += " You are " + seats[payload.you] + ".";
  else text += " Spectator view.";
  return text;
};

Render.howToPlay = function (markdown) {
  // the spec's rulebook (Markdown: headings, lists, paragraphs, tables), as text nodes only; a table
  // row is a list item of its cells (the panel is narrow), a picture's description is left out
  const box = RS.el("div", { class: "rules" });
  let list = null;
  for (const raw of (markdown || "").split("\n")) {
    const line = raw.replace(/\*\*|`/g, "");
    const heading = /^(#{1,4})\s+(.*)$/.exec(line);
    const item = /^\s*(?:[-*]|\d+\.)\s+(.*)$/.exec(line);
    const row = /^\|(.*)\|\s*$/.exec(line);
    if (/^\*Picture:/.test(raw.trim()) || /^\|(\s*-+\s*\|)+\s*$/.test(line)) continue;
    if (row) {
      if (!list) { list = RS.el("ul", { class: "table-rows" }); box.append(list); }
      list.append(RS.el("li", { text: row[1].split("|").map((c) => c.trim()).filter((c) => c).join(" \u00b7 ") }));
    }
    else if (heading) { list = null; box.append(RS.el("h" + Math.min(6, heading[1].length + 2), { text: heading[2] })); }
    else if (item) { if (!list) { list = RS.el("ul", {}); box.append(list); } list.append(RS.el("li", { text: item[1] })); }
    else if (line.trim()) { list = null; box.append(RS.el("p", { text: line.trim() })); }
    else list = null;
  }
  return box;
};

Render.moves = function (payload, choose) {
  // every legal move, by its label: the list a newcomer reads (and hovering one shows its target)
  const panel = RS.el("div", { class: "panel", id: "actions" }, RS.el("h2", { text: "Your moves" }));
  if (!payload.actions.length) {
    panel.append(RS.el("div", { class: "muted", id: "waiting", text: payload.over ? "The match is over." : (Render.deciding(payload) || "Nothing to do now.") }));
    return panel;
  }
  const step = Render.stepText(payload.step);
  if (step) panel.append(RS.el("div", { class: "step", id: "step", text: step }));
  const onBoard = payload.actions.some((a) => a.target);
  if (onBoard) panel.append(RS.el("div", { class: "muted", text: "Click a move below, or its highlighted square or card." }));
  const list = RS.el("div", { class: "moves", id: "moves" });
  for (const action of payload.actions.slice(0, MAX_MOVES_SHOWN)) {
    const button = RS.el("button", { "data-action": String(action.id), title: action.label, onclick: () => choose([action]), text: action.label });
    const key = action.target ? (action.target.kind === "cell" ? action.target.name : action.target.name) : null;
    if (key) {
      button.addEventListener("mouseenter", () => document.querySelectorAll("[data-key='" + CSS.escape(key) + "']").forEach((n) => n.classList.add("hint")));
      button.addEventListener("mouseleave", () => document.querySelectorAll(".hint").forEach((n) => n.classList.remove("hint")));
    }
    list.append(button);
  }
  if (payload.actions.length > MAX_MOVES_SHOWN) list.append(RS.el("div", { class: "muted", text: "and " + (payload.actions.length - MAX_MOVES_SHOWN) + " more (click the table)" }));
  panel.append(list, RS.el("div", { id: "chooser" }));
  return panel;
};

Render.all = function (root, payload, choose) {
  const targets = Render.targets(payload.actions);
  for (const zone of payload.layout.zones) {
    const mine = zone.kind === "player" && payload.you >= 0 ? (payload.view.zones[zone.name] || [])[payload.you] : null;
    for (const item of Render.cardsOf(mine)) if (item.name) targets.owned.add(item.name);
  }
  const status = RS.el("div", { class: "panel", id: "status" }, RS.el("div", { text: Render.status(payload) }));
  for (const notice of payload.notices || []) status.append(RS.el("div", { class: "notice", text: notice }));
  if (payload.error) status.append(RS.el("div", { class: "error", text: payload.error }));
  const left = RS.el("div", { class: "grow" });
  if (payload.layout.board) left.append(RS.el("div", { class: "panel", id: "board" }, Render.board(payload, targets, choose)));
  left.append(RS.el("div", { class: "panel", id: "zones" }, RS.el("h2", { text: "Cards" }), Render.zones(payload, targets, choose)));
  const moves = Render.moves(payload, choose);
  const right = RS.el("div", { class: "side" }, moves,
    RS.el("div", { class: "panel" }, RS.el("h2", { text: "Scores" }), Render.scores(payload), Render.values(payload)),
    RS.el("div", { class: "panel" }, RS.el("h2", { text: "Log" }),
      RS.el("div", { id: "log" }, ...payload.log.map((line) => RS.el("div", { class: "line", text: line.n + ". " + (line.player >= 0 ? payload.layout.seats[line.player] : "chance") + ": " + line.text })))),
    RS.el("div", { class: "panel" }, RS.el("h2", { text: "Events" }),
      RS.el("div", { id: "events" }, ...payload.view.events.map((e) => RS.el("div", { class: "event", "data-type": e.type, text: e.text || e.type })))),
    RS.el("details", { class: "panel", id: "how" }, RS.el("summary", { text: "How to play " + payload.layout.game }), Render.howToPlay(payload.layout.how_to_play)));
  const how = root.querySelector("#how");
  if (how && how.open) right.querySelector("#how").open = true;
  root.replaceChildren(status, RS.el("div", { class: "row" }, left, right));
  for (const id of ["log", "events"]) { const box = document.getElementById(id); box.scrollTop = box.scrollHeight; }
  return moves.querySelector("#chooser") || RS.el("div", {});
};
