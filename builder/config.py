"""The ``site.yml`` schema.

Every field is declared once here, with its meaning. ``load_config`` reads the file with
YAML safe loading, validates it with pydantic and reports *every* error at once, each with
its field path, as one ``UserError`` (exit code 2 at the CLI).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)

from builder.errors import UserError

PACKAGE_DATA = Path(__file__).parent / "data"


def resolve_data_path(path: str, base: Path | None) -> Path:
    """A data path from site.yml: absolute as is, else under ``base`` (site.yml's folder) when
    it exists there, else under the package's bundled ``data/`` folder."""
    p = Path(path)
    if p.is_absolute():
        return p
    if base is not None and (base / p).exists():
        return base / p
    return PACKAGE_DATA / p


def snapshots_path(cfg: SiteConfig, base: Path, override: str | Path | None = None) -> Path:
    """The dated snapshots' folder: ``override`` when given, else ``snapshots_dir`` of site.yml
    (relative to ``base``, site.yml's folder)."""
    if override is not None:
        return Path(override)
    p = Path(cfg.snapshots_dir)
    return p if p.is_absolute() else base / p


SourceKind = str
"""A source kind's name: a built-in kind or a plugin's (``builder.sources.registry``; ``modelboards
sources`` lists them). Checked against the registry when the registry is loaded (it installs
its check with ``use_kind_check``: this module sits below the sources and cannot import them)."""

KindCheck = Callable[[str], "str | None"]
OptionsCheck = Callable[[str, dict[str, Any]], list[str]]
_kind_checks: list[tuple[KindCheck, OptionsCheck]] = []


def use_kind_checks(kind: KindCheck, options: OptionsCheck) -> None:
    """Install the registry's config-time checks of a source: ``kind(name)`` says why a kind
    name is unknown (None: it is known); ``options(kind, options)`` lists the problems of its
    kind-specific options, each ``"<option>: <what is wrong>"``."""
    _kind_checks[:] = [(kind, options)]


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class SiteInfo(Strict):
    title: str = "ModelBoards"
    "Site title, shown in every page header."
    url: str = "https://example.github.io/modelboards/"
    "Public base URL of the site (http or https); used for canonical links, sitemap and citations."
    description: str = "AI-model leaderboards scored by a published, recomputable method."
    "One-line description for the front page and meta tags."
    licence: str = "CC BY-SA 4.0"
    "Licence of the rating tables the site publishes."
    repository: str | None = None
    "URL of the site's source repository (shown in the footer), optional."

    @field_validator("url", "repository")
    @classmethod
    def _http_only(cls, v: str | None) -> str | None:
        if v is not None and not (v.startswith("http://") or v.startswith("https://")):
            raise ValueError("must be an http(s) URL")
        return v


class SourceConfig(Strict):
    name: str = Field(pattern=r"^[a-z0-9][a-z0-9_-]*$")
    "Unique source id, used in feed names (``livebench/coding``) and store paths."
    kind: SourceKind
    "Which parser reads the payload."
    title: str = ""
    "Human name shown in the Sources disclosure (defaults to the name)."
    url: str | None = None
    "Live URL (``--live``). For folder-shaped sources, the base the kind's fetch plan starts from."
    recorded: str | None = None
    "Recorded payload: a file or folder, relative to the package's ``data/`` folder or absolute."
    enabled: bool = True
    "A disabled source is neither fetched nor scored."
    local: bool = False
    "The payload is the project's own file (curated metadata): read from ``recorded`` in both modes."
    evaluator: str | None = None
    "Independent evaluator id (publisher). Defaults to the source name."
    licence: str = "unknown"
    "The upstream data's licence, credited in the Sources disclosure."
    attribution: str = ""
    "Attribution text credited in the Sources disclosure."
    homepage: str | None = None
    "Upstream home page linked from the disclosure."
    release: str | None = None
    "Release hint: a label for the payload's release when the payload carries none."
    date: dt.date | None = None
    "Publication-date hint when the payload carries none (LMArena files have no dates inside)."
    recorded_date: dt.date | None = None
    "Fetch date of the recorded payload (offline builds), so a fresh clone dates it the same way."
    timeout: float = Field(default=30.0, gt=0)
    "Idle timeout, seconds: the longest wait to connect or between two reads of one HTTP response."
    deadline: float = Field(default=300.0, gt=0)
    "Total deadline, seconds, for one download (connect, headers, whole body): a server that drips bytes is cut off."
    max_bytes: int = Field(default=50_000_000, gt=0)
    "Size cap per HTTP response, bytes (after content decoding, so a gzip bomb stops here too)."
    redirect_hosts: list[str] = Field(default_factory=list)
    "Other host names a redirect may lead to; a redirect to the URL's own host is always followed, any other refused."
    min_records: int = Field(default=1, ge=0)
    """Plausibility: a new payload must yield at least this many usable records (rows, models or prices,
    excluded rows not counted), else the source fails and its last good payload stays."""
    upstream_file: str | None = Field(default=None, pattern=r"^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+:[^:].*$")
    """``owner/repo:path/in/repo`` of the GitHub file the payload is, for its publication date when the
    payload carries none (the date of the file's last commit); default: read from a
    ``raw.githubusercontent.com/<owner>/<repo>/<ref>/<path>`` URL."""
    options: dict[str, Any] = Field(default_factory=dict)
    "Kind-specific options (e.g. Terminal-Bench ``commit``, LiveBench ``index_url``)."

    @field_validator("url", "homepage")
    @classmethod
    def _http_only(cls, v: str | None) -> str | None:
        if v is not None and not (v.startswith("http://") or v.startswith("https://")):
            raise ValueError("must be an http(s) URL")
        return v

    @field_validator("kind")
    @classmethod
    def _known_kind(cls, v: str) -> str:
        for check, _ in _kind_checks:
            problem = check(v)
            if problem:
                raise ValueError(problem)
        return v

    @field_validator("options")
    @classmethod
    def _kind_options(cls, v: dict[str, Any], info: ValidationInfo) -> dict[str, Any]:
        kind = info.data.get("kind")
        problems = [p for _, check in _kind_checks for p in check(kind, v)] if kind else []
        if problems:
            raise ValueError("; ".join(problems))
        return v

    @property
    def evaluator_id(self) -> str:
        return self.evaluator or self.name

    def recorded_path(self, base: Path | None = None) -> Path | None:
        """Absolute path of the recorded payload (package data unless absolute / config-relative)."""
        return resolve_data_path(self.recorded, base) if self.recorded else None


class FamilyConfig(Strict):
    title: str
    "Display name of the family."
    feeds: list[str]
    "Feeds (``source/feed`` names) whose calibrated scores the family averages equally."


class RoleConfig(Strict):
    title: str
    "Display name of the role."
    weights: dict[str, float]
    "Family -> weight; only families present for a model count, the rest renormalise."

    @field_validator("weights")
    @classmethod
    def _positive(cls, v: dict[str, float]) -> dict[str, float]:
        bad = [k for k, w in v.items() if not w > 0]
        if bad:
            raise ValueError(f"weights must be positive: {', '.join(bad)}")
        return v


BoardKind = Literal["orchestrator", "open_weight", "mid_tier", "rote", "build_prices"]


class BoardConfig(Strict):
    id: str = Field(pattern=r"^[a-z0-9][a-z0-9-]*$")
    "URL-safe board id (``/boards/<id>/``)."
    title: str
    "Board title."
    kind: BoardKind
    "Which qualification rule applies (see the methodology)."
    role: str
    "Role whose weights score the board."
    description: str = ""
    "One-paragraph explanation shown above the table."


class MachineConfig(Strict):
    id: str = Field(pattern=r"^[a-z0-9][a-z0-9-]*$")
    "URL-safe machine id."
    name: str
    "Display name, e.g. 'RTX 3090'."
    memory_gb: float = Field(gt=0)
    "Memory available to the model, GB."


_DAY_OF_WORK: dict[str, float] = {"orchestrator": 2, "mid_tier": 10, "rote": 50}
"The value stack's default day of work, million tokens per role (written as the method id hashes them)."


class PriceRules(Strict):
    rote_build_max: float = 0.25
    "Rote workers: build price at most this (USD per build)."
    rote_token_max: float = 0.30
    "Rote workers without a build price: blended token price at most this (USD / M tokens)."
    mid_token_min: float = 0.30
    "Mid-tier workers without a build price: blended token price strictly above this."
    mid_token_max: float = 3.0
    "Mid-tier workers without a build price: blended token price at most this."
    mid_build_min: float = 0.25
    "Mid-tier workers: build price strictly above this (and strictly below the cheapest flagship build)."
    value_stack_max: dict[str, float] = Field(
        default_factory=lambda: {"orchestrator": 5.0, "mid_tier": 1.0, "rote": 0.30}
    )
    "Value stack: OpenRouter blended price strictly below this per role (USD / M tokens)."
    day_of_work: dict[str, float] = Field(default_factory=lambda: dict(_DAY_OF_WORK))
    "Value stack day-of-work estimate: million tokens per role."
    memory_fraction: float = 0.8
    "Home-computer picks: 4-bit memory must fit within this fraction of the machine's memory."
    bytes_per_param_4bit: float = 0.5 * 1.25
    "Home-computer picks: GB per billion parameters at 4 bits, with 25% overhead."


class FlagshipRule(Strict):
    tokens: list[str] = Field(default_factory=lambda: ["opus", "sol", "astra", "fable"])
    "Name tokens that mark a flagship (excluded from worker boards)."
    prefixes: list[str] = Field(default_factory=lambda: ["muse-spark"])
    "Name prefixes that mark a flagship."
    gemini_pro: bool = True
    "Gemini names with a 'pro' token are flagships."
    grok_unless: list[str] = Field(default_factory=lambda: ["mini", "fast"])
    "Grok names are flagships unless they carry one of these tokens."


class FoldingConfig(Strict):
    effort_suffixes: list[str] = Field(
        default_factory=lambda: [
            "-high", "-medium", "-low", "-minimal", "-xhigh", "-thinking", "-non-reasoning",
            "-reasoning", "-nothink", "-no-thinking", "-nothinking", "-highthinking", "-thinking-auto",
            "-high-effort", "-medium-effort", "-low-effort", "-xhigh-effort", "-max-effort",
            "(high)", "(medium)", "(low)", "(minimal)", "(thinking)", "(no thinking)", "(no think)",
            "(default)", "(default think)", "(24k think)", "(32k think)", "(32k thinking)",
            "(32k thinking tokens)", "(16k thinking)", "(64k thinking)", "(8k thinking)",
            "-thinking-16k", "-thinking-32k", "-thinking-64k", "-thinking-128k",
            "_high", "_medium", "_low", "_minimal", "_xhigh", "_16K", "_27K", "_32K", "_59K", "_64K",
        ]
    )
    "Reasoning-effort suffixes folded into the base model (effort folds first, then the date)."
    provider_prefixes: list[str] = Field(
        default_factory=lambda: [
            "openai/", "anthropic/", "google/", "gemini/", "meta-llama/", "mistralai/",
            "deepseek/", "x-ai/", "xai/", "qwen/", "moonshotai/", "z-ai/", "openrouter/",
        ]
    )
    "Provider prefixes stripped before folding."


StyleFeature = Literal["tokens", "headers", "bold", "lists"]


class ArenaReaderConfig(Strict):
    """How battles files are read: DuckDB, embedded, one connection per read."""

    memory_limit: str = Field(default="512MB", pattern=r"^\s*\d+(\.\d+)?\s*([KMGT]i?B|B)\s*$")
    "DuckDB's memory limit for one read, e.g. 512MB or 2GB; past it DuckDB spills to temp_directory."
    temp_directory: str | None = None
    "Folder DuckDB spills to past the memory limit (default: the system temp folder), relative to the working folder."
    threads: int | None = Field(default=None, ge=1)
    "DuckDB worker threads for the scan (default: one per core)."


class ArenaSparkConfig(Strict):
    """Where the spark engine runs (``arena.engine: spark``): the master and more SparkSession settings."""

    master: str = Field(default="local[*]", min_length=1)
    ("Spark master: ``local[*]``, ``local[N]``, ``spark://host:7077``, ``yarn``, ``k8s://https://host``, or "
     "``databricks`` / ``databricks:PROFILE`` (Databricks Connect with that ~/.databrickscfg profile).")
    config: dict[str, str | int | float | bool] = Field(default_factory=dict)
    "More SparkSession settings, e.g. ``spark.executor.memory: 8g`` or ``spark.hadoop.fs.s3a.endpoint: ...``."

    @field_validator("master")
    @classmethod
    def _master(cls, v: str) -> str:
        v = v.strip()
        if not re.match(r"^(local(\[(\*|\d+)(,\d+)?\])?|spark://\S+|yarn|k8s://\S+|mesos://\S+|databricks(:\S+)?)$",
                        v):
            raise ValueError(f"not a Spark master: {v!r} (local[*], local[N], spark://host:port, yarn, k8s://..., "
                             "databricks[:PROFILE])")
        return v


class ArenaCovariateConfig(Strict):
    """One covariate of the contextual (style-controlled) fit, a number per battle, standardised
    like the style features; its coefficient is reported beside theirs."""

    name: str = Field(pattern=r"^[A-Za-z][A-Za-z0-9_]{0,39}$")
    "The covariate's name (``is_direct``, ``same_org``), as its coefficient is labelled."
    column: str | None = None
    "A battle column (keys joined by ``/`` for a nested value): a number, or a boolean as 1 / 0."
    sql: str | None = None
    "A DuckDB expression over the battle's top-level columns (JSON columns arrive as DuckDB JSON: cast them)."
    catalog: Literal["same_org"] | None = None
    ("From the model catalog: ``same_org`` is 1 when both models' organisations are known and equal, else 0 "
     "(catalog covariates come after the column and sql ones).")

    @model_validator(mode="after")
    def _one_source(self) -> ArenaCovariateConfig:
        if sum(v is not None for v in (self.column, self.sql, self.catalog)) != 1:
            raise ValueError(f"covariate {self.name!r}: give exactly one of column, sql and catalog")
        return self


class ArenaCategoryConfig(Strict):
    """One category board: the battles whose own tags meet every criterion given (ANDed),
    fitted as a full board (ratings, intervals, Rank (UB), style view) on its own page."""

    id: str = Field(pattern=r"^[a-z0-9][a-z0-9-]{0,39}$")
    "Slug of the board: its page is ``arena/<id>/``."
    title: str = Field(min_length=1)
    "The board's title, e.g. Math or Multi-Turn."
    tag: str | None = None
    "A ``category_tag`` criterion: keys joined by ``/`` (``math_v0.1/math``, ``if_v0.1/if``); the value must be true."
    tag_min_true: int | None = Field(default=None, ge=1)
    "With ``tag`` naming an object: at least this many of its members true (Hard Prompts: ``criteria_v0.1``, 6)."
    language: str | None = None
    "Conversation language, exact (e.g. English)."
    is_code: bool | None = None
    "The battle's ``is_code`` flag."
    min_turn: int | None = Field(default=None, ge=1)
    "At least this many conversation turns (Multi-Turn: 2)."
    min_user_tokens: float | None = Field(default=None, ge=0)
    "``conv_metadata.sum_user_tokens`` at least this (Longer Query: 500)."

    @model_validator(mode="after")
    def _one_criterion(self) -> ArenaCategoryConfig:
        if all(v is None for v in (self.tag, self.language, self.is_code, self.min_turn, self.min_user_tokens)):
            raise ValueError(f"category {self.id!r}: give at least one criterion (tag, language, is_code, "
                             "min_turn, min_user_tokens)")
        if self.tag_min_true is not None and self.tag is None:
            raise ValueError(f"category {self.id!r}: tag_min_true needs tag")
        return self


class ArenaConfig(Strict):
    enabled: bool = True
    "Build the Arena page from pairwise battles."
    battles: str | None = "demo/battles/clean_battle_demo.jsonl"
    "Recorded battles file (JSON, JSONL, CSV or Parquet), relative to package data or absolute."
    live_url: str | None = None
    "Public clean_battle dump for ``--live`` (streamed to disk with resume and a size cap)."
    live_max_bytes: int = Field(default=4_000_000_000, gt=0)
    "Size cap for the live battles dump, bytes."
    live_timeout: float = Field(default=60.0, gt=0)
    "Idle timeout of the live battles download, seconds (connect, or between two reads)."
    live_deadline: float = Field(default=3600.0, gt=0)
    "Total deadline of one attempt at the live battles download, seconds (a partial file is kept for the next run)."
    live_redirect_hosts: list[str] = Field(default_factory=list)
    "Other host names a redirect of ``live_url`` may lead to (its own host is always allowed)."
    live_min_battles: int = Field(default=1, ge=1)
    "Plausibility: a downloaded dump must hold at least this many valid battles, else the last good dump stays."
    live_max_bad_share: float = Field(default=0.05, ge=0, le=1)
    "Plausibility: at most this share of a downloaded dump's rows may be bad (missing or same model, unknown winner)."
    anony_only: bool = False
    "Keep anonymous votes only, and refuse a battles file without an ``anony`` column."
    all_votes: bool = False
    ("Fit every vote: turn off the official filters (anonymous votes only and duplicate-tagged prompts "
     "dropped, each applied by default when the battles file carries the column).")
    bootstrap: int = 200
    "Bootstrap rounds for the confidence intervals."
    seed: int = 42
    "Seed for every random draw in the Arena pipeline."
    history: Literal["day", "week", "month"] = "week"
    "History slice period (feeds the race and charts)."
    history_bootstrap: int = Field(default=0, ge=0)
    "Bootstrap rounds per history slice (0: point ratings only) for the CI bands of the charts."
    min_pair_battles: int = 50
    "Pairs with fewer battles are left out of the win-rate MAE."
    top_heatmap: int = Field(default=30, ge=2)
    "Models in the win-rate heatmaps and ``winrate.json``: the top N of the main component by rating."
    default_view: Literal["plain", "style"] = "plain"
    "The Arena page's default view: plain Bradley-Terry, or style-controlled (when the battles carry conv_metadata)."
    style_control: bool = True
    "Also fit the style-controlled ratings when the battles carry conv_metadata (JSON, JSON Lines or Parquet)."
    style_features: tuple[StyleFeature, ...] = Field(default=("tokens", "headers", "bold", "lists"), min_length=1)
    "Style features of the style-controlled fit."
    style_ci: Literal["sandwich", "bootstrap"] = "sandwich"
    "Intervals of the style-controlled fit: the sandwich estimator, or ``bootstrap`` rounds (seeded by ``seed``)."
    reweight: bool = False
    "LMArena's inverse-frequency weights 1 / max(battles of the pair, 50), for the plain and the styled fit."
    flip_top: int = Field(default=10, ge=0)
    ("Vote flip budgets (how few removed votes reverse a pair, verified by refitting) for the adjacent pairs "
     "among the top N of each fitted board, plain and styled; 0: off.")
    reader: ArenaReaderConfig = Field(default_factory=ArenaReaderConfig)
    "The battles reader's resources (DuckDB memory limit, spill folder, threads)."
    engine: Literal["duckdb", "spark"] = "duckdb"
    ("What reduces the battles for ``arena fit``: DuckDB in process, or Apache Spark (``spark``: battles anywhere "
     "Spark reads, e.g. s3a://, gs://, abfss://, hdfs://; Parquet, JSON Lines or JSON).")
    spark: ArenaSparkConfig = Field(default_factory=ArenaSparkConfig)
    "The spark engine's master and SparkSession settings."
    voter_column: str | None = None
    "Column naming the voter (default: the first of judge, session_id, sess_id, voter, user_id the dump has)."
    voter_daily_cap: int | None = Field(default=None, ge=1)
    "Keep each voter's first N votes of each UTC day (off when null, or when the dump names no voter)."
    anomalous_voters_fpr: float | None = Field(default=None, gt=0, lt=0.5)
    ("Drop anomalous voters: a voter whose votes' log-likelihood under the fitted model is below the "
     "expectation by more than this one-sided normal quantile (the share of honest voters flagged); null: off.")
    anomalous_voters_min_votes: int = Field(default=20, ge=5)
    "Fewest decisive votes (not ties) a voter needs before the anomalous-voter test judges them."
    covariates: list[ArenaCovariateConfig] = Field(default_factory=list)
    ("More covariates of the contextual fit beside the style features (the style preset, ``style_features``), "
     "e.g. is_direct or a same-organisation flag; the styled view fits them all together.")
    models: str | None = None
    "Keep battles whose two model names both match this regular expression (one arena of a mixed dump)."

    @field_validator("models")
    @classmethod
    def _regex(cls, v: str | None) -> str | None:
        if v is not None:
            try:
                re.compile(v)
            except re.error as exc:
                raise ValueError(f"not a regular expression: {v!r} ({exc})") from None
        return v
    categories: list[ArenaCategoryConfig] = Field(default_factory=list)
    "Category boards published beside the main one, from the battles' own tags (none by default)."

    @field_validator("categories")
    @classmethod
    def _unique_categories(cls, v: list[ArenaCategoryConfig]) -> list[ArenaCategoryConfig]:
        ids = [c.id for c in v]
        dup = sorted({i for i in ids if ids.count(i) > 1})
        if dup:
            raise ValueError(f"duplicate category id(s): {', '.join(dup)}")
        return v


class NamedArenaConfig(ArenaConfig):
    """One more arena (vision, text-to-image, image editing, ...): the same method on another
    battles file, with its own page ``arenas/<id>/``, downloads, API document and race."""

    id: str = Field(pattern=r"^[a-z0-9][a-z0-9-]{0,39}$")
    "Slug of the arena (its page is arenas/<id>/)."
    title: str = Field(min_length=1)
    "The arena's name, e.g. Text-to-Image."
    battles: str | None = None
    "Recorded battles file (JSON, JSONL, CSV or Parquet), relative to site.yml's folder or absolute."


class UncertaintyConfig(Strict):
    """Intervals, rank ranges and tie groups of the role boards: a seeded bootstrap of the board
    arithmetic (see ``builder.scoring.uncertainty`` and the Methodology page). It never changes a
    board's R, score, rank, labels or order, so it is not part of the method id."""

    rounds: int = Field(default=1000, ge=0)
    "Bootstrap rounds per snapshot; 0 turns the feature off (no intervals, no Rank (UB), no tie markers)."
    seed: int = Field(default=42, ge=0)
    "Seed of the one ``random.Random(seed)`` stream every draw comes from, in the documented order."

    @field_validator("rounds")
    @classmethod
    def _enough_rounds(cls, v: int) -> int:
        if 0 < v < MIN_UNCERTAINTY_ROUNDS:
            raise ValueError(f"rounds must be 0 (off) or at least {MIN_UNCERTAINTY_ROUNDS}, got {v}")
        return v


MIN_UNCERTAINTY_ROUNDS = 20
"Fewest bootstrap rounds that give a 2.5-97.5% interval at all (below that both ends are the extremes)."


class RobustnessConfig(Strict):
    """How much the role boards depend on their evaluators and weights (see
    ``builder.scoring.robustness`` and the Methodology page). Like the bootstrap it never changes
    a board's R, score, rank, labels or order, so it is not part of the method id."""

    enabled: bool = True
    "Leave-one-evaluator-out ranks, the smallest set of evaluators that changes #1, and the weight draws."
    max_set: int = Field(default=3, ge=1, le=6)
    "Largest set of evaluators searched (sets of 1, 2, ... up to this many) for one whose leaving out changes #1."
    concentration: float = Field(default=50.0, gt=0, le=1e9, allow_inf_nan=False)
    """Dirichlet concentration of the weight draws: parameters concentration * published weight share. Larger
    keeps the draws nearer the published weights (at 50 a weight of 0.2 varies by about 0.06)."""
    draws: int = Field(default=1000, ge=0, le=100_000)
    "Weight vectors drawn per role; 0 turns the weight robustness off."
    seed: int = Field(default=42, ge=0)
    "Seed of the ``random.Random(seed)`` stream of the weight draws (``gammavariate``, families in ascending id)."


class EvalSuiteConfig(Strict):
    id: str = Field(pattern=r"^[a-z0-9][a-z0-9-]*$")
    "URL-safe suite id."
    title: str
    "Suite title."
    kind: Literal["aggregate", "clarify"] = "aggregate"
    "aggregate: EvalRun files; clarify: clarification run directories scored with TKQR/ORA."
    format: Literal["modelboards", "lm-eval-harness", "inspect"] = "modelboards"
    """What the files of an aggregate suite are: ``modelboards`` (JSON Lines / CSV / JSON records of
    model_id, task_id, metric_name, score), ``lm-eval-harness`` (``--output_path`` folders written
    with ``--log_samples``) or ``inspect`` (Inspect AI ``.eval`` / ``.json`` logs). Each sample of a
    tool's output is one task of the suite (``builder.evals.harness``)."""
    paths: list[str]
    "Files or folders, relative to site.yml's folder, else to package data, or absolute."
    metric: str | None = None
    """Metric shown on the board (default: the first one found); for ``lm-eval-harness`` also the
    metric read per task when the task has it (default: acc, then exact_match, acc_norm, ...)."""
    bootstrap: int = 500
    "Bootstrap rounds."
    seed: int = 42
    "Bootstrap seed."
    description: str = ""
    "Shown above the suite's table."

    @model_validator(mode="after")
    def _format_of_aggregate_only(self) -> EvalSuiteConfig:
        if self.kind == "clarify" and self.format != "modelboards":
            raise ValueError(f"format {self.format!r} applies to aggregate suites only (clarify reads run folders)")
        return self


IndexFamily = Literal["general", "coding", "agent", "reasoning"]


class IndexBoardConfig(Strict):
    feed: str
    "The upstream board: a feed (``source/feed``) or an eval suite (``evals/<suite id>``)."
    family: IndexFamily
    "The Capability Index family the board belongs to."
    share: float = Field(gt=0, le=1)
    "The board's share of its family."
    confidence: float = Field(ge=0, le=100)
    "How much the board is trusted, 0-100; a row's weight is share x confidence / 100."


def _default_index_boards() -> list[IndexBoardConfig]:
    rows: list[tuple[str, IndexFamily, float, float]] = [
        ("arena/text", "general", 0.6, 90), ("livebench/global", "general", 0.4, 80),
        ("arena/coding", "coding", 0.4, 85), ("aider/polyglot", "coding", 0.3, 80),
        ("livebench/coding", "coding", 0.3, 75), ("terminal-bench/accuracy", "agent", 1.0, 70),
        ("epoch/eci", "reasoning", 1.0, 85),
    ]
    return [IndexBoardConfig(feed=f, family=fam, share=sh, confidence=c) for f, fam, sh, c in rows]


class IndexConfig(Strict):
    """The Capability Index: a second ranking on a 0-100 scale (see the methodology)."""

    enabled: bool = True
    "Compute and publish the Capability Index."
    version: str = "capindex-v1"
    "Method name; the index method id is this plus a hash of the settings below."
    boards: list[IndexBoardConfig] = Field(default_factory=_default_index_boards)
    "Upstream boards, each in one family with a share and a confidence."
    family_weights: dict[str, float] = Field(
        default_factory=lambda: {"coding": 30.0, "agent": 20.0, "reasoning": 30.0}
    )
    "Specialist family weights, percent: how far each family may move a model from its general score."
    delta_bound: float = Field(default=8.0, gt=0)
    "A specialist family moves the score by at most +/- this many points (before its weight)."
    sigmas: dict[str, float] = Field(
        default_factory=lambda: {"measured-specialist": 6.0, "lineage": 8.0, "maker-prior": 12.0}
    )
    "Standard deviation (index points) of each fusion channel; the fused score weights by 1/sigma^2."
    confidence_per_sigma: float = Field(default=5.0, gt=0)
    "A fused model's confidence is 100 minus this times the fused sigma (clamped to 0-100)."
    tolerance: float = Field(default=0.15, gt=0)
    "A rebuilt number must land within this of the published one."
    lineages: dict[str, str] = Field(default_factory=dict)
    "Identity key -> lineage key, overriding the lineage derived from the identity."

    @field_validator("sigmas")
    @classmethod
    def _sigmas_positive(cls, v: dict[str, float]) -> dict[str, float]:
        need = {"measured-specialist", "lineage", "maker-prior"}
        if set(v) != need:
            raise ValueError(f"sigmas must name exactly {sorted(need)}")
        if any(not x > 0 for x in v.values()):
            raise ValueError("every sigma must be positive")
        return v

    def method_id(self) -> str:
        blob = json.dumps(self.model_dump(exclude={"enabled"}), sort_keys=True).encode()
        return f"{self.version}-{hashlib.sha256(blob).hexdigest()[:12]}"


class FetchSettings(Strict):
    user_agent: str = "ModelBoards/0.1 (+https://github.com/modelboards/modelboards)"
    "User-Agent sent with every request."
    retries: int = Field(default=3, ge=1, le=10)
    "Attempts per request (exponential backoff between them)."
    backoff: float = 0.5
    "First backoff delay, seconds (doubles each attempt)."
    store: str = ".modelboards/store"
    "Where fetched payloads and their status records go (git-ignored), relative to site.yml."
    lock_timeout: float = Field(default=900.0, ge=0)
    "Seconds a run waits for another run of the same project (which holds the lock) before giving up with exit code 2."
    concurrency: int = Field(default=4, ge=1, le=32)
    "Sources fetched at once (the operator's own local files are read first, one by one)."
    budget: float = Field(default=600.0, gt=0)
    "Seconds all sources' downloads of one run may take together (the build-wide fetch budget): each download's own\
 deadline is cut to what is left of it, and a source that has not started when it is spent fails with that reason.\
 The Arena battles dump has its own deadline (arena.live_deadline)."
    github_api: str = Field(default="https://api.github.com", pattern=r"^https?://")
    """GitHub REST API base. A live fetch asks its commits API for the date of the source file's last
    upstream commit, which dates a payload that carries no date (``GITHUB_TOKEN`` goes to
    https://api.github.com only)."""


class LimitsConfig(Strict):
    """Caps on what one upstream payload may hold: a row over a cap is excluded with the reason,
    a payload over ``max_models`` (or published in the future) fails its source with the reason,
    so an absurd value never reaches scoring, the snapshot or the site."""

    max_rating: float = Field(default=1_000_000.0, gt=0)
    "Largest magnitude of a published score or rating (any scale): a row beyond it is excluded."
    max_price: float = Field(default=100_000.0, gt=0)
    "Largest price, USD per million tokens (input, output or blended) or per build: a row beyond it is excluded."
    max_name_length: int = Field(default=200, ge=8)
    "Longest model name, in characters after cleaning: a longer row is excluded (its name cut to this length)."
    max_models: int = Field(default=20_000, ge=1)
    "Most distinct model names one payload may hold: more fails the source."
    future_days: int = Field(default=1, ge=0)
    "A date after today (UTC) plus this many days: the row is excluded (a publication date: the source fails)."


class ChangesConfig(Strict):
    score_threshold: float = Field(default=10.0, gt=0)
    "The What changed page lists a score move when a board row's unrounded R moved by at least this (Arena points)."


class SiteConfig(Strict):
    site: SiteInfo = Field(default_factory=SiteInfo)
    "Title, URL and licence of the site."
    sources: list[SourceConfig]
    "Every upstream source, in disclosure order."
    folding: FoldingConfig = Field(default_factory=FoldingConfig)
    "How model spellings fold into identity keys."
    aliases: dict[str, str] = Field(default_factory=dict)
    "Spelling (after case/separator folding) -> identity key, for names that differ across sources; adds to and "
    "overrides the shipped identity registry and the site's identities.yml."
    _base_dir: Path | None = PrivateAttr(default=None)
    families: dict[str, FamilyConfig]
    "Rating families and the feeds that make them (``source/feed``, or ``evals/<suite id>`` for an eval suite)."
    roles: dict[str, RoleConfig]
    "Roles and their family weights."
    boards: list[BoardConfig]
    "Role boards, in menu order."
    machines: list[MachineConfig] = Field(default_factory=list)
    "Home-computer picks."
    prices: PriceRules = Field(default_factory=PriceRules)
    "Price thresholds of the worker boards and the value stack."
    flagship: FlagshipRule = Field(default_factory=FlagshipRule)
    "The flagship-name rule of the worker boards."
    fetch: FetchSettings = Field(default_factory=FetchSettings)
    "HTTP settings and the payload store."
    snapshots_dir: str = "snapshots"
    "Committed dated snapshots (relative to site.yml)."
    arena: ArenaConfig = Field(default_factory=ArenaConfig)
    "The Arena page: Bradley-Terry from pairwise battles."
    arenas: list[NamedArenaConfig] = Field(default_factory=list)
    "More arenas, each the same method on its own battles file (the text arena stays ``arena``)."
    evals: list[EvalSuiteConfig] = Field(default_factory=list)
    "The operator's own eval suites."
    index: IndexConfig = Field(default_factory=IndexConfig)
    "The Capability Index."
    uncertainty: UncertaintyConfig = Field(default_factory=UncertaintyConfig)
    "Bootstrap intervals, rank ranges and tie groups on every role board."
    robustness: RobustnessConfig = Field(default_factory=RobustnessConfig)
    "Leave-one-evaluator-out ranks and weight robustness on every role board."
    demo: bool = False
    "True when the configured payloads are the bundled demo data (a banner says so on every page)."
    changes: ChangesConfig = Field(default_factory=ChangesConfig)
    "The What changed pages (``changes/<DATE>/``), the feed and ``modelboards diff``."
    limits: LimitsConfig = Field(default_factory=LimitsConfig)
    "Caps on upstream values: ratings, prices, dates, name lengths, models per payload."

    @model_validator(mode="after")
    def _cross_checks(self) -> SiteConfig:
        errors: list[str] = []
        names = [s.name for s in self.sources]
        dupes = sorted({n for n in names if names.count(n) > 1})
        if dupes:
            errors.append(f"sources: duplicate names {', '.join(dupes)}")
        for role_id, role in self.roles.items():
            for fam in role.weights:
                if fam not in self.families:
                    errors.append(f"roles.{role_id}.weights.{fam}: unknown family")
        for i, b in enumerate(self.boards):
            if b.role not in self.roles:
                errors.append(f"boards.{i}.role: unknown role {b.role!r}")
        suites = {s.id for s in self.evals}
        for fam_id, family in self.families.items():
            for feed in family.feeds:
                head, _, tail = feed.partition("/")
                if head == "evals" and "evals" not in names:  # an eval suite as a source: evals/<suite id>
                    if tail not in suites:
                        errors.append(f"families.{fam_id}.feeds: {feed!r} names no configured eval suite")
                elif head not in names:
                    errors.append(f"families.{fam_id}.feeds: {feed!r} names no configured source")
        if errors:
            raise ValueError("; ".join(errors))
        return self

    def source(self, name: str) -> SourceConfig:
        for s in self.sources:
            if s.name == name:
                return s
        raise KeyError(name)

    def base_dir(self) -> Path | None:
        """The folder of the ``site.yml`` this config was loaded from (None: built in code).
        The site's own files beside it (the identity registry) are found from here."""
        return self._base_dir

    def method_config(self) -> dict[str, Any]:
        """The part of the configuration that defines the scoring method."""
        return {
            "sources": sorted((s.name, s.kind) for s in self.sources if s.enabled),
            "families": {k: sorted(v.feeds) for k, v in sorted(self.families.items())},
            "roles": {k: dict(sorted(v.weights.items())) for k, v in sorted(self.roles.items())},
            "folding": self.folding.model_dump(),
            "aliases": dict(sorted(self.aliases.items())),
            "prices": self.prices.model_dump(),
            "flagship": self.flagship.model_dump(),
        }

    def method_id(self) -> str:
        """``boards-zfit-v1-<hash>``: a change of sources, families or weights is a new method."""
        blob = json.dumps(self.method_config(), sort_keys=True, default=str).encode()
        return f"boards-zfit-v1-{hashlib.sha256(blob).hexdigest()[:12]}"


def _format_errors(path: Path, exc: ValidationError) -> str:
    lines = []
    for err in exc.errors():
        loc = ".".join(str(p) for p in err["loc"]) or "(top level)"
        lines.append(f"{loc}: {err['msg']}")
    return f"{path}: {len(lines)} error(s): " + "; ".join(lines)


_LIBYAML_LOADER = getattr(yaml, "CSafeLoader", None)
"PyYAML's safe loader over libyaml, when PyYAML was built with it: the same constructors, a faster parser."


def _read_yaml(text: str) -> Any:
    """``yaml.safe_load(text)``, parsed by libyaml when present (site.yml's parse was most of a
    config load). A text libyaml refuses is read again by the pure-Python loader, so a bad file
    is reported exactly as before."""
    if _LIBYAML_LOADER is not None:
        try:
            return yaml.load(text, Loader=_LIBYAML_LOADER)  # noqa: S506 (a SafeLoader)
        except yaml.YAMLError:
            pass
    return yaml.safe_load(text)


def load_config(path: str | Path) -> tuple[SiteConfig, Path]:
    """Read and validate ``site.yml``; return the config and the folder it lives in."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise UserError(f"{path}: config file not found") from None
    except UnicodeDecodeError as exc:
        raise UserError(f"{path}: not UTF-8 text at byte {exc.start}: save the file as UTF-8") from None
    except OSError as exc:
        raise UserError(f"{path}: cannot read config: {exc.strerror}") from None
    try:
        data = _read_yaml(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}, column {mark.column + 1}: " if mark else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise UserError(f"{path}: {where}invalid YAML: {problem}") from None
    if not isinstance(data, dict):
        raise UserError(f"{path}: expected a mapping at the top level, got {type(data).__name__}")
    try:
        cfg = SiteConfig.model_validate(data)
    except ValidationError as exc:
        raise UserError(_format_errors(path, exc)) from None
    base = path.resolve().parent
    cfg._base_dir = base
    return without_demo_roster(cfg, base), base


DEMO_ROSTER = (PACKAGE_DATA / "models.yml").resolve()
"The bundled roster of invented demo models (``metadata`` kind): facts for the demo only."


def without_demo_roster(cfg: SiteConfig, base: Path | None) -> SiteConfig:
    """``cfg`` with the bundled demo roster's source disabled unless ``demo: true``: a live
    site never shows an invented model or an invented fact about a real one. An operator's
    own curated metadata file is kept in every mode."""
    if cfg.demo:
        return cfg
    sources = [
        s.model_copy(update={"enabled": False})
        if s.recorded and resolve_data_path(s.recorded, base).resolve() == DEMO_ROSTER
        else s
        for s in cfg.sources
    ]
    return cfg.model_copy(update={"sources": sources})
