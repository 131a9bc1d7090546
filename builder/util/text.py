"""What the site lets through from upstream: only http(s) links, escaped text, stable paths.

Every string in a snapshot came from somebody else's file. Templates autoescape it; links
go through ``safe_url`` (anything that is not an absolute http(s) URL renders as text);
model identities become directory names through ``model_slug`` (a fixed alphabet, never
``..``, with a hash suffix whenever the identity had to be changed so two identities never
share a page).

Two more rules, used by the site and by the engines' own outputs alike:

* Bidirectional control characters (``BIDI_CONTROLS``: the embeddings, overrides and
  isolates U+202A-U+202E and U+2066-U+2069, and the marks U+200E, U+200F, U+061C) let a name
  reorder how the text around it reads ("gpt-6" shown for something else). They have no
  place in a model name: ``strip_bidi`` removes them (right-to-left letters themselves stay).
  The jinja environment's ``finalize`` (``finalize_value``) applies it to every printed
  value, and ``escape_html`` to HTML built outside templates (the charts' SVG).
* Right-to-left letters stay, and a name made of them still pulls neutral text and digits
  next to it into its own direction ("rank 3" read as "3 rank"). A name a page's script
  draws (the race, the chart pages: SVG labels, legends, tooltips, search lists) arrives
  from its JSON as one bidi isolate: ``isolate_bidi`` = FSI U+2068, the name without
  controls, PDI U+2069. An isolate is laid out apart from the text around it whatever it
  holds, in SVG text, HTML, native tooltips and form options alike, so a script needs no
  markup of its own to keep it in. ``builder.charts.script_json`` applies it to every name
  of those documents; the HTML of the same pages prints names through the environment
  (stripped) in cells and links of their own.
* A spreadsheet runs a cell that starts with ``=``, ``+``, ``-``, ``@``, a tab or a carriage
  return as a formula ("CSV injection"): ``neutralise_formula`` prefixes such text with an
  apostrophe, which spreadsheets show as text.
"""

from __future__ import annotations

import hashlib
import re
from typing import Any
from urllib.parse import urlsplit

from markupsafe import Markup, escape

#: The Content-Security-Policy every page carries in a meta tag: nothing from another origin,
#: no inline script or style. (frame-ancestors cannot be set from a meta tag.)
CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; "
    "font-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'none'"
)

_CONTROL = re.compile(r"[\x00-\x20\x7f]")
_SLUG_OK = re.compile(r"^[a-z0-9][a-z0-9._-]{0,79}$")


def safe_url(u: object) -> str | None:
    """``u`` when it is an absolute http(s) URL with a host, else None.

    Rejects ``javascript:``, ``data:``, protocol-relative ``//host`` and anything with
    whitespace or control characters (browsers strip those, which is how ``java\\tscript:``
    sneaks past naive checks).
    """
    if not isinstance(u, str) or not u or _CONTROL.search(u):
        return None
    try:
        parts = urlsplit(u)
    except ValueError:
        return None
    if parts.scheme.lower() not in ("http", "https") or not parts.netloc:
        return None
    return u


def model_slug(identity: str) -> str:
    """Directory name of a model's page (``/models/<slug>/``), stable for a given identity.

    Identities made of ``[a-z0-9._-]`` (and not starting with a dot) are used as they are;
    anything else is reduced to that alphabet and suffixed with 8 hex digits of its SHA-256.
    """
    if _SLUG_OK.match(identity) and ".." not in identity:
        return identity
    base = re.sub(r"[^a-z0-9._-]+", "-", identity.lower()).strip("-.")
    base = re.sub(r"\.{2,}", ".", base)[:60] or "model"
    digest = hashlib.sha256(identity.encode("utf-8")).hexdigest()[:8]
    return f"{base}-{digest}"


BIDI_CONTROLS = (
    "\u202a", "\u202b", "\u202c", "\u202d", "\u202e",  # embeddings, pop, overrides
    "\u2066", "\u2067", "\u2068", "\u2069",  # isolates
    "\u200e", "\u200f", "\u061c",  # LRM, RLM, ALM
)
_BIDI = re.compile("[" + "".join(BIDI_CONTROLS) + "]")

FORMULA_START = ("=", "+", "-", "@", "\t", "\r")

FSI, PDI = "\u2068", "\u2069"
"FIRST STRONG ISOLATE and POP DIRECTIONAL ISOLATE: the marks that open and close an isolate."


def strip_bidi(text: str) -> str:
    """``text`` without bidirectional control characters (none is ASCII: most text is returned at once)."""
    if text.isascii():
        return text
    return _BIDI.sub("", text) if _BIDI.search(text) else text


def isolate_bidi(text: str) -> str:
    """``text`` as one first-strong bidi isolate: FSI, the text without bidi controls, PDI.

    Stripping first means no override or embedding inside can outlive the isolate, and an
    already isolated text is isolated once (``isolate_bidi(isolate_bidi(t)) ==
    isolate_bidi(t)``)."""
    return FSI + strip_bidi(text) + PDI


def neutralise_formula(text: str) -> str:
    """``text`` as a CSV cell no spreadsheet runs as a formula."""
    return "'" + text if text.startswith(FORMULA_START) else text


def escape_html(value: object) -> Markup:
    """``markupsafe.escape`` of ``value`` with bidi controls removed first: the one escaping
    function for HTML built outside the templates (the charts' SVG)."""
    if isinstance(value, Markup):
        return value
    return escape(strip_bidi(value) if isinstance(value, str) else value)


def finalize_value(value: Any) -> Any:
    """The jinja environment's ``finalize``: every printed value passes here before escaping,
    so bidi controls from upstream text never reach a page (markup the templates built is
    left alone: its own printed values already passed here)."""
    if type(value) is str:  # most printed values: plain text, then numbers
        return value if value.isascii() else strip_bidi(value)
    if isinstance(value, str) and not isinstance(value, Markup):
        return strip_bidi(value)
    return value


def csv_cell(v: Any) -> str:
    """One value as a CSV cell of a download: None empty, booleans true/false, floats exact
    (repr), lists ';'-joined, and text from upstream that a spreadsheet would run as a
    formula prefixed with an apostrophe (the JSON downloads keep the text unchanged)."""
    if v is None:
        return ""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        return repr(v)
    if isinstance(v, (int,)):
        return str(v)
    if isinstance(v, (list, tuple)):
        v = ";".join(str(x) for x in v)
    return neutralise_formula(str(v))


# An absolute local path inside a message (not part of a URL: no "//" or scheme before it).
_LOCAL_PATH = re.compile(r"(?<![\w.:/\\-])(/[^\s/:'\"(),;]+(?:/[^\s/:'\"(),;]+)*/?)")


def public_message(text: str | None, base: str | None = None) -> str | None:
    """``text`` fit for the published site: a path under ``base`` (site.yml's folder) made
    relative to it, any other absolute local path cut to its last part (``…/name``), so a
    failed source's error never publishes the build machine's folders."""
    if not text:
        return text
    if base:
        root = base.rstrip("/") + "/"
        text = text.replace(root, "")

    def cut(m: re.Match[str]) -> str:
        path = m.group(1)
        name = path.rstrip("/").rsplit("/", 1)[-1]
        return f"…/{name}" if name else "…/"

    return _LOCAL_PATH.sub(cut, text)
