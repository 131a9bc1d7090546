"""The registry of source kinds: every fact about a kind, declared once.

A *kind* is a parser plus what the rest of the build needs to know about it: how its
payload is fetched, what it yields, whether its rows carry their own dates, what counts as a
usable record, which selection step runs before the general rule, and which roles its
records play in the method (the Arena scale, the token price list, ...). Config validation,
fetch, plausibility, backfill, selection and scoring ask the ``SourceKindSpec``; no code
outside a kind's own module compares a kind or a source name to a string.

``BUILTIN_KINDS`` lists the kinds shipped with ModelBoards, the way
``builder.render.pages.PAGES`` lists pages. Third-party kinds come from the entry-point
group ``modelboards.sources`` (``ENTRY_POINT_GROUP``): each entry point names a
``SourceKindSpec`` (or a zero-argument callable returning one); ``modelboards sources``
lists every kind found and where it comes from. A plugin that fails to load is one warning
line naming it, and the build goes on without it.

Adding a built-in kind:

1. write ``builder/sources/<kind>.py`` with ``parse(payload, source) -> ParseResult``
   (raise ``PayloadError`` for a payload that cannot be read as a whole; keep a bad row as
   an excluded record with its reason);
2. declare it here: one ``SourceKindSpec(...)`` in ``BUILTIN_KINDS``, e.g.::

       SourceKindSpec(
           name="modelsdev", parse=modelsdev.parse,
           summary="models.dev catalog: model facts",
           fetch=FetchPlan("file"), yields=frozenset({"metadata"}), dated_rows=False),

3. that is all: ``site.yml`` may now say ``kind: modelsdev``.

Adding a kind as a plugin: the same ``SourceKindSpec`` in your own package, named by an
entry point (``[project.entry-points."modelboards.sources"] mykind = "mypkg:SPEC"``).
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from importlib import metadata as importlib_metadata
from typing import Any, Literal

# each kind's module by its full name: the registry imports the kinds, never the package
# (whose parse_payload dispatches through the registry)
import builder.sources.aider as aider
import builder.sources.epoch as epoch
import builder.sources.litellm as litellm
import builder.sources.livebench as livebench
import builder.sources.lmarena as lmarena
import builder.sources.lmarena_catalog as lmarena_catalog
import builder.sources.metadata as curated
import builder.sources.modelsdev as modelsdev
import builder.sources.openrouter as openrouter
import builder.sources.piratebench as piratebench
import builder.sources.table as table
import builder.sources.terminal_bench as terminal_bench
from builder import config as _config
from builder.config import SourceConfig
from builder.records import ParseResult, Payload
from builder.sources.base import PayloadError

log = logging.getLogger(__name__)

ENTRY_POINT_GROUP = "modelboards.sources"
"The entry-point group third-party kinds are declared in."

Yield = Literal["scores", "prices", "metadata", "build_checks"]
"""What a kind's parser yields: observations (scores), token prices, facts about models
(metadata), build checks."""

Role = Literal["arena", "list_prices", "market_prices", "build_checks", "curated", "licences", "catalog"]
"""What a kind's records do in the method, beyond their yield:

* ``arena``: its ``<source>/text`` feed is the Arena text scale every other feed calibrates to
  (and the Arena page's published ratings);
* ``list_prices``: its token prices qualify models for the worker boards (cheapest entry);
* ``market_prices``: its token prices price the value stack (what a buyer pays a router);
* ``build_checks``: its build checks give build prices and the pass marks;
* ``curated``: the operator's own model facts: display names, release dates, first in merges,
  and models listed there count even before any evaluation;
* ``licences``: its weight licences decide the open-weight board.
* ``catalog``: a maintained catalog of models: its names are display names (after the
  operator's curated ones), its facts second only to theirs (see ``info_priority``).
"""

DEFAULT_INFO_PRIORITY = 4
"The fact priority of a kind that declares none: after every catalog."

FetchShape = Literal["file", "index", "tarball", "local"]


@dataclass(frozen=True)
class FetchPlan:
    """How ``--live`` obtains a kind's payload (``builder.fetch`` runs it).

    * ``file``: GET ``url``; the payload is one file named ``file_name`` when set, else the
      URL's last path segment;
    * ``index``: GET ``options[index_option]`` (a GitHub contents-API listing), ``pick`` the
      file names to get from the listing's names, GET each from ``url`` + name;
    * ``tarball``: GET ``url`` (a .tar.gz of a repository), keep its ``results/**.json``;
    * ``local``: the operator's own file, read from ``recorded`` in both modes, never fetched.
    """

    shape: FetchShape = "file"
    file_name: str | None = None
    index_option: str = "index_url"
    pick: Callable[[list[str]], tuple[str, ...]] | None = None


def count_records(result: ParseResult) -> int:
    """Usable records of a scores / prices / build-check payload: those not excluded."""
    return (
        sum(o.excluded is None for o in result.observations)
        + sum(p.excluded is None for p in result.prices)
        + sum(b.excluded is None for b in result.build_checks)
    )


def count_models(result: ParseResult) -> int:
    """Usable records of a payload of facts about models: the models."""
    return len(result.models)


SelectStep = Literal["latest_run"]
"""A selection step that runs, per spelling, before the general (raw, date, spelling, URL)
rule (``builder.scoring.select``): ``latest_run``: the latest date wins, then the greatest URL."""


@dataclass(frozen=True)
class SourceKindSpec:
    """One source kind (see the module docstring for each field's use).

    ``parse(payload, source) -> ParseResult``; ``check_options(options) -> [problem, ...]``
    validates a source's ``options`` at config time (each problem one line naming the option).
    """

    name: str
    parse: Callable[[Payload, SourceConfig], ParseResult]
    summary: str
    yields: frozenset[Yield]
    fetch: FetchPlan = FetchPlan()
    dated_rows: bool = True
    "Its rows carry their own dates (a backfill drops rows dated after the day); False: they take the file's."
    dated_releases: bool = False
    "One payload holds several releases told apart by the dates in its file names (a backfill takes the newest due)."
    usable: Callable[[ParseResult], int] = count_records
    "Plausibility: how many usable records a parsed payload holds (``min_records`` applies to it)."
    usable_what: str = "usable records"
    "What ``usable`` counts, for the failure message."
    select_step: SelectStep | None = None
    roles: frozenset[Role] = frozenset()
    info_priority: int = 4
    """Rank of its model facts when facts of several sources merge (lower first; a fact comes from
    the first source that states it): the curated file 0, models.dev 1, LMArena's catalog 2,
    Epoch's columns 3, any other kind ``DEFAULT_INFO_PRIORITY``."""
    check_options: Callable[[dict[str, Any]], list[str]] | None = None
    origin: str = "builtin"
    "Where the kind comes from: ``builtin`` or the distribution name of the plugin."

    @property
    def local(self) -> bool:
        """The payload is the operator's own file (read in both modes, never checked for plausibility)."""
        return self.fetch.shape == "local"


BUILTIN_KINDS: tuple[SourceKindSpec, ...] = (
    SourceKindSpec(
        name="lmarena", parse=lmarena.parse, summary="LMArena leaderboard JSON {category: {model: {rating, ...}}}",
        yields=frozenset({"scores"}), dated_rows=False, roles=frozenset({"arena"})),
    SourceKindSpec(
        name="lmarena_catalog", parse=lmarena_catalog.parse,
        summary="LMArena arena-catalog scatterplot data (names, organisation, licence)",
        yields=frozenset({"metadata"}), dated_rows=False, usable=count_models, usable_what="models",
        roles=frozenset({"licences", "catalog"}), info_priority=2),
    SourceKindSpec(
        name="modelsdev", parse=modelsdev.parse,
        summary="models.dev catalog: repository tarball or api.json (names, organisation, open weights, dates)",
        yields=frozenset({"metadata"}), dated_rows=False, usable=count_models, usable_what="models",
        roles=frozenset({"catalog"}), info_priority=1),
    SourceKindSpec(
        name="epoch", parse=epoch.parse, summary="Epoch AI Capabilities Index CSV",
        yields=frozenset({"scores", "metadata"}), info_priority=3),
    SourceKindSpec(
        name="aider", parse=aider.parse, summary="Aider polyglot leaderboard YAML",
        yields=frozenset({"scores"})),
    SourceKindSpec(
        name="livebench", parse=livebench.parse, summary="LiveBench dated table CSV + categories JSON",
        yields=frozenset({"scores"}), dated_releases=True,
        fetch=FetchPlan("index", pick=livebench.pick_release_files)),
    SourceKindSpec(
        name="terminal_bench", parse=terminal_bench.parse,
        summary="Terminal-Bench leaderboard repository run folders",
        yields=frozenset({"scores"}), fetch=FetchPlan("tarball"), select_step="latest_run"),
    SourceKindSpec(
        name="litellm", parse=litellm.parse, summary="LiteLLM model_prices_and_context_window.json",
        yields=frozenset({"prices", "metadata"}), dated_rows=False, roles=frozenset({"list_prices"})),
    SourceKindSpec(
        name="openrouter", parse=openrouter.parse, summary="OpenRouter GET /api/v1/models",
        yields=frozenset({"prices", "metadata"}), dated_rows=False, roles=frozenset({"market_prices"}),
        fetch=FetchPlan("file", file_name="models.json")),
    SourceKindSpec(
        name="piratebench", parse=piratebench.parse,
        summary="PirateBench build checks (ModelBoards' documented JSON format)",
        yields=frozenset({"build_checks"}), roles=frozenset({"build_checks"})),
    SourceKindSpec(
        name="metadata", parse=curated.parse, summary="curated model metadata YAML (the operator's own file)",
        yields=frozenset({"metadata"}), dated_rows=False, usable=count_models, usable_what="models",
        roles=frozenset({"curated"}), info_priority=0, fetch=FetchPlan("local")),
    SourceKindSpec(
        name="table", parse=table.parse,
        summary="any published leaderboard by configuration (CSV, TSV, JSON, JSON Lines, YAML)",
        yields=frozenset({"scores"}), check_options=table.check_options),
)


# --------------------------------------------------------------------------- plugins


@dataclass
class _Catalog:
    kinds: dict[str, SourceKindSpec] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    broken: dict[str, str] = field(default_factory=dict)  # entry-point name -> why it did not load
    loaded: bool = False


_CATALOG = _Catalog()


def _load_plugin(ep: importlib_metadata.EntryPoint) -> SourceKindSpec:
    """The spec an entry point names (a spec, or a zero-argument callable returning one)."""
    obj = ep.load()
    if not isinstance(obj, SourceKindSpec) and callable(obj) and not hasattr(obj, "parse"):
        obj = obj()
    if not isinstance(obj, SourceKindSpec):
        raise TypeError(f"{type(obj).__name__} is not a SourceKindSpec")
    if not callable(obj.parse):
        raise TypeError(f"kind {obj.name!r}: parse is not callable")
    dist = ep.dist.name if ep.dist is not None else ep.value
    return dataclasses.replace(obj, origin=dist)


def load_kinds(reload: bool = False) -> Mapping[str, SourceKindSpec]:
    """Kind name -> spec: the built-in kinds, then the plugins' (a plugin never replaces a
    built-in kind). Plugins are looked up once per process (``reload`` looks again)."""
    if _CATALOG.loaded and not reload:
        return _CATALOG.kinds
    kinds = {k.name: k for k in BUILTIN_KINDS}
    problems: list[str] = []
    broken: dict[str, str] = {}
    for ep in sorted(importlib_metadata.entry_points(group=ENTRY_POINT_GROUP), key=lambda e: e.name):
        try:
            spec = _load_plugin(ep)
        except Exception as exc:  # a broken plugin is reported, never fatal
            why = f"source kind plugin {ep.name!r} ({ep.value}) not loaded: {type(exc).__name__}: {exc}"
            problems.append(" ".join(why.split()))
            broken[ep.name] = problems[-1]
            continue
        if spec.name in kinds:
            problems.append(f"source kind plugin {ep.name!r} ({spec.origin}) ignored: kind {spec.name!r} "
                            f"is already declared by {kinds[spec.name].origin}")
            continue
        kinds[spec.name] = spec
    for line in problems:
        log.warning("%s", line)
    _CATALOG.kinds, _CATALOG.problems, _CATALOG.broken, _CATALOG.loaded = kinds, problems, broken, True
    return kinds


def plugin_problems() -> list[str]:
    """One line per plugin that could not be loaded (after ``load_kinds``)."""
    load_kinds()
    return list(_CATALOG.problems)


class UnknownKind(PayloadError):
    """A source names a kind no built-in module or loaded plugin declares (its plugin failed to
    load): no payload of it can be read, so the source fails with this reason and the build goes on."""

    def __init__(self, name: str) -> None:
        why = _CATALOG.broken.get(name)
        super().__init__(f"kind {name!r} is not available: {why}" if why else f"unknown kind {name!r}")
        self.kind = name


def kind_of(source: SourceConfig | str) -> SourceKindSpec:
    """The spec of a source's kind (or of a kind name); raises ``UnknownKind``."""
    name = source if isinstance(source, str) else source.kind
    spec = load_kinds().get(name)
    if spec is None:
        raise UnknownKind(name)
    return spec


def spec_or_none(source: SourceConfig | str) -> SourceKindSpec | None:
    try:
        return kind_of(source)
    except UnknownKind:
        return None


def sources_with(cfg: _config.SiteConfig, role: Role, *, enabled: bool = True) -> set[str]:
    """Names of the configured sources whose kind plays ``role`` (enabled ones only by default)."""
    out = set()
    for s in cfg.sources:
        spec = spec_or_none(s)
        if spec is not None and role in spec.roles and (s.enabled or not enabled):
            out.add(s.name)
    return out


def check_kind(name: str) -> str | None:
    """Why ``name`` is not a kind (config time); None when it is one.

    A kind whose plugin failed to load passes (one warning said so): the source fails when it
    is fetched, with that reason, and the build goes on without it."""
    kinds = load_kinds()
    if name in kinds or name in _CATALOG.broken:
        return None
    return f"unknown kind {name!r} (known: {', '.join(sorted(kinds))}; `modelboards sources` lists them)"


def check_options(name: str, options: dict[str, Any]) -> list[str]:
    """The problems of a source's kind-specific ``options`` (config time), one line each."""
    spec = load_kinds().get(name)
    if spec is None or spec.check_options is None:
        return []
    return spec.check_options(options)


_config.use_kind_checks(check_kind, check_options)
