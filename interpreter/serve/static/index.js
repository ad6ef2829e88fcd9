// Start a match: the seats' links (one per person, or one device passed around).
"use strict";
document.addEventListener("DOMContentLoaded", async () => {
  const message = document.getElementById("message");
  try {
    await Setup.load(document.getElementById("setup"), true);
  } catch (error) {
    message.textContent = error.message;
    return;
  }
  document.getElementById("start").addEventListener("click", async () => {
    message.textContent = "";
    const request = Setup.request();
    request.seats = [...document.querySelectorAll("[data-seat]")].map((s) => s.value);
    request.hot_seat = document.getElementById("hotseat").checked;
    const seed = document.getElementById("seed").value.trim();
    if (seed) request.seed = Number(seed);
    let links;
    try {
      links = await RS.api("POST", "/api/matches", request);
    } catch (error) {
      message.textContent = error.message;
      return;
    }
    const box = document.getElementById("links");
    box.classList.remove("hidden");
    const base = location.origin + "/t/";
    const rows = [RS.el("h2", { text: "Seats" })];
    if (links.hot_seat) rows.push(RS.el("p", {}, RS.el("a", { href: "/t/" + links.hot_seat, id: "hot-seat-link", text: "Open the table (hot seat)" })));
    for (const seat of links.seats) {
      if (!seat.token) { rows.push(RS.el("div", { class: "muted", text: seat.name + ": " + seat.kind })); continue; }
      rows.push(RS.el("div", {}, seat.name + " (a person): ", RS.el("a", { href: "/t/" + seat.token, "data-seat-link": String(seat.seat), text: "take this seat" }),
        " \u2013 or send this link: ", RS.el("input", { readonly: "", value: base + seat.token })));
    }
    rows.push(RS.el("div", { class: "muted" }, "Spectators: ", RS.el("input", { readonly: "", value: base + links.spectator })));
    box.replaceChildren(...rows);
  });
});
