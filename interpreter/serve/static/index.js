// Start a match: the seats' links (one per person, or one device passed around), and the host's controls.
// With more than one person at the table the server deals (a seed typed here would let one of
// them know the others' cards): the seed box is for tables of one person and bots.
"use strict";
const Start = {};

Start.people = function () {
  return [...document.querySelectorAll("[data-seat]")].filter((s) => s.value === "human").length;
};

Start.seedBox = function () {
  const seed = document.getElementById("seed");
  const many = Start.people() > 1;
  seed.disabled = many;
  if (many) seed.value = "";
  document.getElementById("seed-note").textContent = many ? "the server deals when several people play" : "";
};

Start.hostControls = function (links) {
  const stop = RS.el("button", { id: "stop-bots", text: "Stop the bots" });
  const close = RS.el("button", { id: "close-table", text: "Close the table" });
  const note = RS.el("span", { class: "muted" });
  stop.addEventListener("click", async () => {
    try { await RS.api("POST", "/api/t/" + links.host + "/stop-bots", {}); note.textContent = " the bots are stopped"; } catch (e) { note.textContent = " " + e.message; }
  });
  close.addEventListener("click", async () => {
    try { await RS.api("POST", "/api/t/" + links.host + "/close", {}); note.textContent = " the table is closed"; } catch (e) { note.textContent = " " + e.message; }
  });
  return RS.el("div", { id: "host" }, RS.el("b", { text: "You host this table: " }), stop, " ", close, note);
};

document.addEventListener("DOMContentLoaded", async () => {
  const message = document.getElementById("message");
  try {
    await Setup.load(document.getElementById("setup"), true);
  } catch (error) {
    message.textContent = error.message;
    return;
  }
  document.getElementById("setup").addEventListener("change", Start.seedBox);
  Start.seedBox();
  document.getElementById("start").addEventListener("click", async () => {
    message.textContent = "";
    const request = Setup.request();
    request.seats = [...document.querySelectorAll("[data-seat]")].map((s) => s.value);
    request.hot_seat = document.getElementById("hotseat").checked;
    const seed = document.getElementById("seed").value.trim();
    if (seed && Start.people() <= 1) request.seed = Number(seed);
    let links;
    try {
      links = await RS.api("POST", "/api/matches", request);
    } catch (error) {
      message.textContent = error.message;
      return;
    }
    // this browser hosts the table: its seat pages show the host's controls
    for (const token of [links.hot_seat, links.spectator, ...links.seats.map((s) => s.token)]) {
      if (token) localStorage.setItem("rs-host:" + token, links.host);
    }
    const box = document.getElementById("links");
    box.classList.remove("hidden");
    const base = location.origin + "/t/";
    const rows = [RS.el("h2", { text: "Seats" })];
    if (links.hot_seat) rows.push(RS.el("p", {}, RS.el("a", { href: "/t/" + links.hot_seat, id: "hot-seat-link", text: "Open the table (hot seat)" })));
    for (const seat of links.seats) {
      if (!seat.token) { rows.push(RS.el("div", { class: "muted", text: seat.name + ": " + seat.kind })); continue; }
      rows.push(RS.el("div", {}, seat.name + " (a person): ", RS.el("a", { href: "/t/" + seat.token, "data-seat-link": String(seat.seat), text: "take this seat" }),
        " \u2013 or send this link (the first browser to open it holds the seat): ", RS.el("input", { readonly: "", value: base + seat.token })));
    }
    rows.push(RS.el("div", { class: "muted" }, "Spectators: ", RS.el("input", { readonly: "", value: base + links.spectator })));
    rows.push(Start.hostControls(links));
    box.replaceChildren(...rows);
  });
});
