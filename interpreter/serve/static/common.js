// rulespec playground: small helpers shared by every page (plain JavaScript, no build step).
"use strict";
const RS = {};
RS.el = function (tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "class") node.className = v;
    else if (k === "text") node.textContent = v;
    else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else node.setAttribute(k, v);
  }
  for (const child of children) {
    if (child === null || child === undefined) continue;
    node.append(typeof child === "string" ? document.createTextNode(child) : child);
  }
  return node;
};
RS.svg = function (tag, attrs, ...children) {
  const node = document.createElementNS("http://www.w3.org/2000/svg", tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "text") node.textContent = v;
    else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else node.setAttribute(k, v);
  }
  for (const child of children) if (child) node.append(child);
  return node;
};
RS.api = async function (method, url, body) {
  const options = { method, headers: {} };
  if (body !== undefined) {
    options.headers["Content-Type"] = "application/json";
    options.body = JSON.stringify(body);
  }
  const response = await fetch(url, options);
  let data = null;
  try { data = await response.json(); } catch (e) { data = { error: "the server sent no JSON" }; }
  if (!response.ok) {
    const error = new Error((data && data.error) || ("HTTP " + response.status));
    error.status = response.status;
    error.data = data;
    throw error;
  }
  return data;
};
RS.debounce = function (fn, ms) {
  let timer = null;
  return function (...args) {
    clearTimeout(timer);
    timer = setTimeout(() => fn.apply(this, args), ms);
  };
};
RS.nav = function () {
  const bar = document.querySelector("header.top");
  if (!bar) return;
  bar.replaceChildren(RS.el("b", { text: "rulespec playground" }),
    RS.el("a", { href: "/", text: "Play" }), RS.el("a", { href: "/editor", text: "Editor" }),
    RS.el("a", { href: "/replay", text: "Replay" }), RS.el("a", { href: "/simulate", text: "Simulate" }));
};
RS.text = function (value) {
  if (value === null || value === undefined) return "none";
  if (typeof value === "boolean") return value ? "yes" : "no";
  if (Array.isArray(value)) return value.length ? value.map(RS.text).join(", ") : "none";
  if (typeof value === "object") return "(" + Object.entries(value).map(([k, v]) => k + " " + RS.text(v)).join("; ") + ")";
  return String(value);
};
document.addEventListener("DOMContentLoaded", RS.nav);
