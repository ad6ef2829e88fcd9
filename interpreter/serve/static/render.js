// Draws one seat's view (what the server sent: the engine's projection) into the page.
"use strict";
const COLOURS = ["#d1495b", "#2e86ab", "#3c9d5d", "#edae49", "#7b4ea3", "#00798c", "#a05a2c", "#555"];
const Render = {};

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

Render.card = function (item, targets, choose, own) {
  if (item.back) return RS.el("span", { class: "card back", title: "face down", text: "?" });
  if (item.count !== undefined) return RS.el("span", { class: "card back count", title: item.count + " hidden", text: "\u00d7" + item.count });
  // a card action is offered on the viewer's own copies when it holds one, else on every copy shown
  const actions = own || !targets.owned.has(item.name) ? targets.cards[item.name] : undefined;
  const node = RS.el("span", { class: "card" + (actions ? " target" : ""), "data-card": item.name, text: item.name });
  if (actions) {
    node.setAttribute("data-target", "card");
    node.addEventListener("click", () => choose(actions));
  }
  return node;
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

Render.board = function (payload, targets, choose) {
  const layout = payload.layout;
  const board = layout.board;
  const view = payload.view;
  const size = 66;
  const svg = RS.svg("svg", { class: "board", width: board.cols * size + 24, height: board.rows * size + 24,
    viewBox: "0 0 " + (board.cols * size + 24) + " " + (board.rows * size + 24) });
  const cellZones = layout.zones.filter((z) => z.kind === "cell");
  for (let r = 0; r < board.rows; r++) {
    for (let c = 0; c < board.cols; c++) {
      const name = board.cells[r * board.cols + c];
      const x = 20 + c * size, y = 4 + r * size;
      const actions = targets.cells[name];
      const g = RS.svg("g", { "data-cell": name, class: actions ? "target" : "" });
      g.append(RS.svg("rect", { class: "cell", x, y, width: size - 2, height: size - 2,
        fill: (r + c) % 2 ? "#e9e4d8" : "#f7f3ea", stroke: "#998" }));
      g.append(RS.svg("text", { x: x + 3, y: y + 10, fill: "#998", text: name }));
      let line = 0;
      for (const zone of cellZones) {
        const items = Render.cardsOf((view.zones[zone.name] || {})[name]);
        if (!items.length) continue;
        const top = items[items.length - 1];
        const label = top.name || (top.back ? "face down" : "\u00d7" + top.count);
        const more = items.length > 1 ? " +" + (items.length - 1) : "";
        g.append(RS.svg("rect", { x: x + 4, y: y + 14 + line * 18, width: size - 10, height: 16, rx: 3,
          fill: top.name ? "#fff" : "#34508a", stroke: "#556", "data-card": top.name || "" }));
        g.append(RS.svg("text", { x: x + 7, y: y + 26 + line * 18, fill: top.name ? "#000" : "#fff", text: label + more }));
        line++;
      }
      const piece = (view.board || {})[name];
      if (piece) {
        const colour = COLOURS[piece.owner >= 0 ? piece.owner % COLOURS.length : 7];
        g.append(RS.svg("circle", { cx: x + size / 2, cy: y + size - 16, r: 12, fill: colour, stroke: "#222",
          "data-piece": piece.id }));
        g.append(RS.svg("text", { x: x + size / 2 - 9, y: y + size - 12, fill: "#fff",
          text: (layout.seats[piece.owner] || "?").slice(0, 2) + (piece.piece || "").slice(0, 1) }));
      }
      if (actions) {
        g.setAttribute("data-target", "cell");
        g.addEventListener("click", () => choose(actions));
      }
      svg.append(g);
    }
  }
  return svg;
};

Render.zones = function (payload, targets, choose) {
  const layout = payload.layout;
  const view = payload.view;
  const box = RS.el("div", {});
  for (const zone of layout.zones) {
    if (zone.kind === "cell" && layout.board) continue;
    const value = view.zones[zone.name];
    if (zone.kind === "player") {
      (value || []).forEach((pview, p) => {
        const who = layout.seats[p] + (p === payload.you ? " (you)" : "");
        const items = Render.cardsOf(pview);
        const own = p === payload.you;
        box.append(RS.el("div", { class: "zone", "data-zone": zone.name, "data-seat": String(p) },
          RS.el("span", { class: "label", text: zone.label + " \u2013 " + who }),
          ...(items.length ? items.map((i) => Render.card(i, targets, choose, own)) : [RS.el("span", { class: "muted", text: "empty" })])));
      });
    } else if (zone.kind === "cell") {
      for (const [cell, cview] of Object.entries(value || {})) {
        box.append(RS.el("div", { class: "zone", "data-zone": zone.name },
          RS.el("span", { class: "label", text: zone.label + " " + cell }),
          ...Render.cardsOf(cview).map((i) => Render.card(i, targets, choose))));
      }
    } else {
      const items = Render.cardsOf(value);
      box.append(RS.el("div", { class: "zone", "data-zone": zone.name },
        RS.el("span", { class: "label", text: zone.label }),
        ...(items.length ? items.map((i) => Render.card(i, targets, choose)) : [RS.el("span", { class: "muted", text: "empty" })])));
    }
  }
  return box;
};

Render.scores = function (payload) {
  const table = RS.el("table", { class: "grid", id: "scores" });
  const extra = new Set();
  for (const p of payload.view.players) for (const k of Object.keys(p)) if (!["seat", "name", "score", "total"].includes(k)) extra.add(k);
  table.append(RS.el("tr", {}, RS.el("th", { text: "seat" }), RS.el("th", { text: "who" }), RS.el("th", { text: "round" }),
    RS.el("th", { text: "total" }), ...[...extra].map((k) => RS.el("th", { text: k.replace(/_/g, " ") }))));
  for (const p of payload.view.players) {
    const seat = (payload.seats || [])[p.seat] || {};
    const mark = payload.deciding === p.seat ? " \u25c0" : "";
    table.append(RS.el("tr", { class: p.seat === payload.you ? "seat-you" : "" },
      RS.el("td", { text: p.name + mark }), RS.el("td", { text: (seat.kind || "") + (p.seat === payload.you ? " (you)" : "") }),
      RS.el("td", { text: RS.text(p.score) }), RS.el("td", { text: RS.text(p.total) }),
      ...[...extra].map((k) => RS.el("td", { text: k in p ? RS.text(p[k]) : "\u2013" }))));
  }
  return table;
};

Render.eventText = function (event, seats) {
  const parts = [];
  for (const [k, v] of Object.entries(event)) {
    if (k === "type" || k === "to") continue;
    const isSeat = ["player", "source", "target", "winner"].includes(k) && Number.isInteger(v);
    parts.push(k.replace(/_/g, " ") + " " + (isSeat ? (seats[v] || v) : RS.text(v)));
  }
  return event.type.replace(/_/g, " ") + (parts.length ? ": " + parts.join(", ") : "");
};

Render.status = function (payload) {
  const v = payload.view;
  const seats = payload.layout.seats;
  let text = payload.layout.game + " \u2013 round " + v.round + ", turn " + v.turn + ". ";
  if (payload.over) {
    const winners = (v.winners || []).map((w) => seats[w]);
    text += "Match over. Winner" + (winners.length === 1 ? "" : "s") + ": " + (winners.join(", ") || "nobody") + ".";
  } else if (payload.deciding === "chance") text += "Chance is drawing.";
  else if (payload.deciding === payload.you && payload.actions.length) text += "Your turn.";
  else if (payload.deciding !== null && payload.deciding !== undefined) text += seats[payload.deciding] + " to play.";
  if (payload.you >= 0) text += " You are " + seats[payload.you] + ".";
  else text += " Spectator view.";
  return text;
};

Render.all = function (root, payload, choose) {
  const targets = Render.targets(payload.actions);
  for (const zone of payload.layout.zones) {
    const mine = zone.kind === "player" && payload.you >= 0 ? (payload.view.zones[zone.name] || [])[payload.you] : null;
    for (const item of Render.cardsOf(mine)) if (item.name) targets.owned.add(item.name);
  }
  const status = RS.el("div", { class: "panel", id: "status", text: Render.status(payload) });
  if (payload.error) status.append(RS.el("div", { class: "error", text: payload.error }));
  const left = RS.el("div", { class: "grow" });
  if (payload.layout.board) left.append(RS.el("div", { class: "panel", id: "board" }, Render.board(payload, targets, choose)));
  left.append(RS.el("div", { class: "panel", id: "zones" }, RS.el("h2", { text: "Zones" }), Render.zones(payload, targets, choose)));
  const actions = RS.el("div", { class: "panel", id: "actions" }, RS.el("h2", { text: "Actions" }));
  if (!payload.actions.length) actions.append(RS.el("div", { class: "muted", text: "nothing to do now" }));
  else if (!targets.free.length) actions.append(RS.el("div", { class: "muted", text: "click a highlighted cell or card" }));
  for (const action of targets.free) {
    actions.append(RS.el("button", { "data-action": String(action.id), onclick: () => choose([action]), text: action.label }));
  }
  const chooser = RS.el("div", { id: "chooser" });
  actions.append(chooser);
  const variables = Object.entries(payload.view.variables || {});
  const right = RS.el("div", { class: "grow" }, actions,
    RS.el("div", { class: "panel" }, RS.el("h2", { text: "Scores" }), Render.scores(payload),
      variables.length ? RS.el("div", { class: "muted", text: variables.map(([k, v]) => k.replace(/_/g, " ") + ": " + RS.text(v)).join(" \u00b7 ") }) : null),
    RS.el("div", { class: "panel" }, RS.el("h2", { text: "Log" }),
      RS.el("div", { id: "log" }, ...payload.log.map((line) => RS.el("div", { class: "line", text: line.n + ". " + (line.player >= 0 ? payload.layout.seats[line.player] : "chance") + ": " + line.text })))),
    RS.el("div", { class: "panel" }, RS.el("h2", { text: "Events" }),
      RS.el("div", { id: "events" }, ...payload.view.events.map((e) => RS.el("div", { class: "event", "data-type": e.type, text: Render.eventText(e, payload.layout.seats) })))));
  root.replaceChildren(status, RS.el("div", { class: "row" }, left, right));
  for (const id of ["log", "events"]) { const box = document.getElementById(id); box.scrollTop = box.scrollHeight; }
  return chooser;
};
