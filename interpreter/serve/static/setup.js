// The form that picks a spec, a player count, options and the seats (shared by Play and Simulate).
"use strict";
const Setup = { specs: [], bots: [] };

Setup.load = async function (root, withSeats) {
  const data = await RS.api("GET", "/api/specs");
  Setup.specs = data.specs;
  Setup.bots = data.bots;
  const spec = RS.el("select", { id: "spec" }, ...data.specs.map((s) => RS.el("option", { value: s.id, text: s.name + " (" + s.file + ")" + (s.error ? " \u2013 invalid" : "") })));
  const players = RS.el("select", { id: "players" });
  const options = RS.el("div", { id: "options" });
  const seats = RS.el("div", { id: "seats" });
  root.replaceChildren(RS.el("div", {}, "Spec ", spec, " players ", players), options, withSeats ? seats : "");
  const fill = () => {
    const s = Setup.current();
    players.replaceChildren(...s.players.map((n) => RS.el("option", { value: String(n), text: String(n) })));
    options.replaceChildren(...s.options.map((o) => Setup.optionInput(o)));
    if (s.error) options.append(RS.el("div", { class: "error", text: s.error }));
    fillSeats();
  };
  const fillSeats = () => {
    const n = Number(players.value || 0);
    seats.replaceChildren(...Array.from({ length: n }, (_, p) => RS.el("label", {}, " P" + p + " ",
      RS.el("select", { "data-seat": String(p) }, ...["human"].concat(Setup.bots).map((b) => {
        const option = RS.el("option", { value: b, text: b });
        if ((p === 0) === (b === "human") && (p === 0 || b === "random")) option.selected = true;
        return option;
      })))));
  };
  spec.addEventListener("change", fill);
  players.addEventListener("change", fillSeats);
  fill();
};

Setup.optionInput = function (o) {
  let input;
  if (o.type === "bool") {
    input = RS.el("input", { type: "checkbox", "data-option": o.name, "data-type": "bool" });
    input.checked = o.default === true;
  } else if (o.type === "enum") {
    input = RS.el("select", { "data-option": o.name, "data-type": "enum" }, ...(o.values || []).map((v) => RS.el("option", { value: v, text: v })));
    input.value = o.default;
  } else {
    input = RS.el("input", { "data-option": o.name, "data-type": o.type, size: "8", value: String(o.default) });
  }
  return RS.el("div", { title: o.description || "" }, RS.el("span", { class: "label", text: o.name.replace(/_/g, " ") + " " }), input);
};

Setup.current = function () {
  const id = document.getElementById("spec").value;
  return Setup.specs.find((s) => s.id === id);
};

Setup.options = function () {
  const out = {};
  const spec = Setup.current();
  for (const input of document.querySelectorAll("[data-option]")) {
    const o = spec.options.find((x) => x.name === input.dataset.option);
    let value;
    if (input.dataset.type === "bool") value = input.checked;
    else if (input.dataset.type === "enum") value = input.value;
    else if (input.value.trim() === String(o.default)) continue;
    else value = Number.isNaN(Number(input.value)) || input.value.trim() === "" ? input.value : Number(input.value);
    if (value !== o.default) out[o.name] = value;
  }
  return out;
};

Setup.request = function () {
  return { spec: document.getElementById("spec").value, players: Number(document.getElementById("players").value),
    options: Setup.options() };
};
