// English and Croatian UI text. The language comes from the browser and can be
// switched; static markup marks its text with data-i18n="key". The words of
// each language are data in i18n/<lang>.js; this module only picks and fills them.

import en from "./i18n/en.js";
import hr from "./i18n/hr.js";

const STRINGS = { en, hr };

export const LANGUAGES = Object.keys(STRINGS);
const listeners = [];
let lang = "en";

/** The first language of the browser's preferences that this page speaks. */
export function browserLanguage() {
  for (const tag of navigator.languages || [navigator.language || "en"]) {
    const base = String(tag).toLowerCase().split("-")[0];
    if (base in STRINGS) return base;
  }
  return "en";
}

export function getLang() {
  return lang;
}

/** The locale dates, times and numbers are written in for the page's language. */
export function locale(of = lang) {
  return of === "hr" ? "hr-HR" : "en-GB";
}

export function setLang(next) {
  lang = next in STRINGS ? next : "en";
  document.documentElement.lang = lang;
  applyStatic(document);
  for (const fn of listeners) fn(lang);
}

export function onLangChange(fn) {
  listeners.push(fn);
}

const pluralRules = {};

/** A key's text in the current language, {name} placeholders filled; with a
 * number `n`, its plural form where one is given (`key:one`, `key:few`, ... by
 * Intl.PluralRules: "1 karta", "3 karte", "5 karata"). */
export function t(key, vars = {}) {
  let form = null;
  if (typeof vars.n === "number") {
    const rules = (pluralRules[lang] ||= new Intl.PluralRules(lang));
    form = STRINGS[lang][`${key}:${rules.select(vars.n)}`];
  }
  const text = form ?? STRINGS[lang][key] ?? STRINGS.en[key] ?? key;
  return text.replace(/\{(\w+)\}/g, (_, name) => String(vars[name] ?? ""));
}

/** Fill static markup: data-i18n (text), data-i18n-placeholder, data-i18n-title. */
export function applyStatic(root) {
  for (const el of root.querySelectorAll("[data-i18n]")) el.textContent = t(el.dataset.i18n);
  for (const el of root.querySelectorAll("[data-i18n-placeholder]")) {
    el.placeholder = t(el.dataset.i18nPlaceholder);
  }
  for (const el of root.querySelectorAll("[data-i18n-label]")) el.setAttribute("aria-label", t(el.dataset.i18nLabel));
  for (const el of root.querySelectorAll("[data-i18n-title]")) {
    el.title = t(el.dataset.i18nTitle);
    el.setAttribute("aria-label", el.title);
  }
  document.title = t("title");
}
