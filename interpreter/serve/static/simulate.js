// Bot matches of a spec (and a variant): win rates with their intervals, scores, match length.
"use strict";
const Sim = {};

Sim.summary = function (s, title) {
  const rows = s.seats.map((seat) => RS.el("tr", {}, RS.el("td", { text: seat.name }), RS.el("td", { text: seat.agent }),
    RS.el("td", {}, RS.el("span", { class: "bar", "data-rate": String(seat.win_rate) }), " " + (100 * seat.win_rate).toFixed(1) + "%"),
    RS.el("td", { text: (100 * seat.ci[0]).toFixed(0) + "\u2013" + (100 * seat.ci[1]).toFixed(0) + "%" }),
    RS.el("td", { text: seat.score.mean.toFixed(1) + " \u00b1 " + seat.score.sd.toFixed(1) })));
  const box = RS.el("div", { class: "panel summary" }, RS.el("h2", { text: title }),
    RS.el("div", { class: "muted", text: s.game + ", " + s.players + " players, " + s.games + " matches, options " + JSON.stringify(s.options) }),
    RS.el("table", { class: "grid" }, RS.el("tr", {}, ...["seat", "bot", "win rate", "95% interval", "final score"].map((h) => RS.el("th", { text: h }))), ...rows),
    RS.el("div", { text: "rounds per match " + s.rounds.mean.toFixed(2) + ", actions per match " + s.actions.mean.toFixed(1) + ", lead changes " + s.lead_changes.mean.toFixed(2) }));
  for (const bar of box.querySelectorAll(".bar")) bar.style.width = Math.round(200 * Number(bar.dataset.rate)) + "px";
  return box;
};

Sim.comparison = function (rows) {
  return RS.el("div", { class: "panel" }, RS.el("h2", { text: "A against B (same seeds)" }),
    RS.el("table", { class: "grid", id: "comparison" }, RS.el("tr", {}, ...["metric", "A", "B", "B \u2212 A", "p", ""].map((h) => RS.el("th", { text: h }))),
      ...rows.map((r) => RS.el("tr", {}, RS.el("td", { text: r.metric }), RS.el("td", { text: r.a.toFixed(3) }), RS.el("td", { text: r.b.toFixed(3) }),
        RS.el("td", { text: r.difference.toFixed(3) }), RS.el("td", { text: r.p === null ? "\u2013" : r.p.toFixed(3) }), RS.el("td", { text: r.significant ? "significant" : "" })))));
};

document.addEventListener("DOMContentLoaded", async () => {
  const message = document.getElementById("message");
  await Setup.load(document.getElementById("setup"), false);
  const variants = () => {
    const select = document.getElementById("variant");
    select.replaceChildren(RS.el("option", { value: "", text: "(none)" }),
      ...Setup.current().variants.map((v, i) => RS.el("option", { value: String(i), text: v.name || ("players " + v.players) })));
  };
  document.getElementById("spec").addEventListener("change", variants);
  variants();
  document.getElementById("run").addEventListener("click", async () => {
    message.textContent = "";
    const request = Setup.request();
    request.agents = document.getElementById("agents").value.split(",").map((a) => a.trim()).filter(Boolean);
    request.games = Number(document.getElementById("games").value);
    request.seed = Number(document.getElementById("seed").value || 0);
    const chosen = document.getElementById("variant").value;
    const text = document.getElementById("variant-options").value.trim();
    try {
      if (chosen !== "") {
        const variant = Setup.current().variants[Number(chosen)];
        request.variant = variant.options || {};
        if (variant.players) request.variant_players = variant.players;
      } else if (text) request.variant = JSON.parse(text);
    } catch (error) { message.textContent = "the options are not JSON"; return; }
    const results = document.getElementById("results");
    results.replaceChildren(RS.el("p", { class: "muted", text: "running\u2026" }));
    try {
      const data = await RS.api("POST", "/api/simulate", request);
      const parts = data.summaries.map((s, i) => Sim.summary(s, data.summaries.length > 1 ? (i ? "B: variant" : "A: as set") : "Results"));
      if (data.stopped) parts.unshift(RS.el("div", { class: "panel notice", id: "stopped", text: data.stopped }));
      if (data.comparison) parts.push(Sim.comparison(data.comparison));
      results.replaceChildren(...parts);
    } catch (error) {
      results.replaceChildren();
      message.textContent = error.message;
    }
  });
});
