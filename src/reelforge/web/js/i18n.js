// The player's language: the client's messages come from the server's catalog (GET /api/v1/languages/{lang},
// generated from the gettext PO files), looked up by their English text; plural forms by the CLDR category
// Intl.PluralRules gives; numbers, money and dates by Intl in the session's locale. English is the source:
// a message the catalog lacks is shown in English.

/** The languages offered, each named in its own language (the settings menu lists them so). */
export const LANGUAGE_NAMES = {
  ar: "العربية", de: "Deutsch", en: "English", es: "Español", fi: "Suomi", fr: "Français", hi: "हिन्दी",
  id: "Bahasa Indonesia", ja: "日本語", ko: "한국어", pl: "Polski", pt: "Português", ru: "Русский", tr: "Türkçe",
  vi: "Tiếng Việt", zh: "中文",
};

const L = { lang: "en", locale: "en", messages: {}, plural: new Intl.PluralRules("en") };

/** The base language of a tag when it is offered ("pt-BR" -> "pt"), else null. */
export function baseLanguage(tag) {
  const m = /^([A-Za-z]{2,3})(?:$|[-_])/.exec(String(tag || "").trim());
  const base = m ? m[1].toLowerCase() : null;
  return base && base in LANGUAGE_NAMES ? base : null;
}

/** The first offered language among ``tags`` (the URL's lang, the browser's languages), else English. */
export function negotiate(...tags) {
  for (const tag of tags.flat()) {
    const base = baseLanguage(tag);
    if (base) return base;
  }
  return "en";
}

export const lang = () => L.lang;
/** The locale numbers, money and dates are written in: the session's tag when it is of this language
 * ("ja-JP", "en-GB"), else the language. */
export const locale = () => L.locale;

function fill(text, params) {
  return params ? String(text).replace(/\{(\w+)\}/g, (m, k) => (k in params ? String(params[k]) : m)) : String(text);
}

/** A message (its English text) in the player's language, its {placeholders} filled from ``params``. */
export function t(message, params) {
  const found = L.messages[message];
  return fill(typeof found === "string" ? found : message, params);
}

/** The form of a plural message for the count ``n`` ({n} is filled with ``n`` in the locale's digits). */
export function tn(singular, plural, n, params = {}) {
  const forms = L.messages[singular];
  let text;
  if (forms && typeof forms === "object") text = forms[L.plural.select(n)] ?? forms.other;
  else text = n === 1 ? singular : plural;
  return fill(text, { n: formatNumber(n), ...params });
}

export function formatNumber(n, options) { return Number(n).toLocaleString(L.locale, options); }
export function formatDate(iso) { return iso ? new Date(iso).toLocaleString(L.locale) : ""; }

/** Translate the page's fixed texts: an element marked ``data-i18n`` shows its English text translated,
 * ``data-i18n-label`` its aria-label, ``data-i18n-title`` its title (the English kept the first time). */
export function translatePage(root = document) {
  for (const node of root.querySelectorAll("[data-i18n]")) {
    if (!node.dataset.i18n) node.dataset.i18n = node.textContent.trim();
    node.textContent = t(node.dataset.i18n);
  }
  for (const [attr, key] of [["aria-label", "i18nLabel"], ["title", "i18nTitle"], ["placeholder", "i18nPlaceholder"]]) {
    const mark = `data-${key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
    for (const node of root.querySelectorAll(`[${mark}]`)) {
      if (!node.dataset[key]) node.dataset[key] = node.getAttribute(attr) || "";
      node.setAttribute(attr, t(node.dataset[key]));
    }
  }
}

/** Speak ``language`` (an offered language, or English): load its catalog, set the page's lang and writing
 * direction, translate the fixed texts. ``tag``: the session's language tag, for the locale. */
export async function setLanguage(language, tag = null) {
  const wanted = negotiate(language);
  let data = { lang: "en", dir: "ltr", messages: {} };
  if (wanted !== "en" || !Object.keys(L.messages).length) {
    try {
      const res = await fetch(`/api/v1/languages/${wanted}`, { headers: { Accept: "application/json" } });
      if (res.ok) data = await res.json();
    } catch { /* English, the source, is always there */ }
  }
  L.lang = data.lang || "en";
  L.messages = data.messages || {};
  L.locale = tag && baseLanguage(tag) === L.lang ? tag : L.lang;
  try { L.plural = new Intl.PluralRules(L.locale); } catch { L.plural = new Intl.PluralRules(L.lang); }
  document.documentElement.lang = L.locale;
  document.documentElement.dir = data.dir === "rtl" ? "rtl" : "ltr";
  translatePage();
  document.dispatchEvent(new CustomEvent("rf:language", { detail: L.lang }));
  return L.lang;
}
