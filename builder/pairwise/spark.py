"""Battle dumps read by Apache Spark (PySpark): the reduction and the styled fit where the battles are kept.

The DuckDB reader (``builder.pairwise.scan``) serves any dump one machine's disk holds; past
that the battles stay where they are (object storage, HDFS) and Spark reduces them there.
What comes back to the driver is small, never a battle:

- the **groups** of raw values ``(model_a, model_b, winner, fate) -> (rows, first position)``,
  O(models^2 x outcomes x filters) rows, which the same Python as the DuckDB reader's
  (``scan.summarise_groups``) cleans into the ``BattleReport``, the model table and the
  ``PairCounts`` the plain fit and its bootstrap need;
- for the style-controlled fit, per Newton pass the loss, gradient and Hessian sums (a
  vector of (models + covariates)^2 numbers; and the sandwich "meat" for the intervals),
  each partition summed by the pass of ``builder.pairwise.styled`` over its
  battles (numpy, in the executors' Python workers) and the partial sums tree-reduced.

The rules (official filters, category, voter cap) are those of ``builder.pairwise.rules``
rendered in Spark SQL by ``SparkDialect``. A JSON record becomes one Spark ``VARIANT``
(Spark 4), so a value keeps its JSON type exactly as DuckDB reads it (``5`` is not the
name ``"5"``); a Parquet column keeps its type. Formats: Parquet (a file or a folder),
JSON Lines and JSON arrays (optionally compressed as Spark reads them), from any path
Spark reads (``s3a://``, ``gs://``, ``abfss://``, ``hdfs://``, local). The format comes from
the suffix as for the DuckDB reader (a path without one is a Parquet folder; a local
``.json`` is peeked at, a remote one is JSON Lines).

Positions (the order of first appearance that numbers the models): ``monotonically_increasing_id``
in the order Spark reads the file, which is file order for one file.

PySpark is imported only here, and this module only when the engine is ``spark``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from builder.errors import UserError
from builder.pairwise.battles import BattleFilters, BattleReport
from builder.pairwise.bt import PairCounts
from builder.pairwise.rules import FILTER_STATUS, check_columns, enabled_filters, fate_sql, voter_cap_rank
from builder.pairwise.scan import (
    FEATURE_MISSING,
    FEATURE_NEGATIVE,
    FEATURE_NO_OBJECT,
    FEATURE_NON_NUMERIC,
    FEATURE_OK,
    FeatureSpec,
    GroupSummary,
    _bounds,
    _pair_cells,
    _pair_counts,
    summarise_groups,
)
from builder.pairwise.summary import BattleSummary, compute_battle_summary

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

    from builder.pairwise.style import StyleReport
    from builder.pairwise.styled import StyledFit, StyledIntervals


@dataclass(frozen=True, slots=True)
class SparkSettings:
    """Where Spark runs: ``master`` is ``local[*]``, ``local[N]``, ``spark://host:7077``, ``yarn``,
    ``k8s://...``, or ``databricks`` / ``databricks:PROFILE`` (Databricks Connect, with that
    profile of ``~/.databrickscfg``); ``config`` more SparkSession settings (``spark.executor.memory``)."""

    master: str = "local[*]"
    config: Mapping[str, str] = field(default_factory=dict)


LOCAL_DEFAULTS: dict[str, str] = {
    "spark.ui.enabled": "false",
    "spark.ui.showConsoleProgress": "false",
    "spark.sql.shuffle.partitions": "8",
    "spark.driver.host": "127.0.0.1",
    "spark.driver.bindAddress": "127.0.0.1",
}
"Settings of a local-mode session (no web UI, loopback only, few shuffle partitions), each overridable."


def _local_defaults() -> dict[str, str]:
    """``LOCAL_DEFAULTS`` and, for the Python workers, this interpreter and this package's folder
    (on a cluster the executors need their own install of modelboards, numpy, numba and pyarrow)."""
    import os
    import sys

    root = str(Path(__file__).resolve().parents[2])
    path = os.pathsep.join(p for p in (root, os.environ.get("PYTHONPATH", "")) if p)
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)  # PySpark's workers run this interpreter
    return {**LOCAL_DEFAULTS, "spark.executorEnv.PYTHONPATH": path}


def spark_session(settings: SparkSettings) -> SparkSession:
    """The SparkSession of ``settings`` (an active one with the same master is reused)."""
    master = settings.master.strip()
    if master == "databricks" or master.startswith("databricks:"):
        try:
            from databricks.connect import DatabricksSession  # type: ignore[import-not-found]
        except ImportError:
            raise UserError("arena.spark.master databricks: install databricks-connect (pip install "
                            "databricks-connect) to run on Databricks") from None
        builder = DatabricksSession.builder
        profile = master.partition(":")[2]
        if profile:
            builder = builder.profile(profile)
        return builder.getOrCreate()  # type: ignore[no-any-return]
    try:
        from pyspark.sql import SparkSession
    except ImportError:
        raise UserError("arena.engine spark: install PySpark (pip install 'pyspark>=4.0') and Java 17") from None
    active = SparkSession.getActiveSession()
    if active is not None and active.sparkContext.master == master:
        return active
    builder = SparkSession.builder.master(master).appName("modelboards")
    conf = {**(_local_defaults() if master.startswith("local") else {}), **dict(settings.config)}
    for key, value in conf.items():
        builder = builder.config(key, str(value))
    try:
        session = builder.getOrCreate()
    except Exception as exc:  # a JVM that cannot start: no Java, a bad master URL
        first = str(exc).strip().split("\n", 1)[0]
        raise UserError(f"arena.spark.master {master!r}: cannot start Spark ({first})") from None
    session.sparkContext.setLogLevel("ERROR")
    return session


# --------------------------------------------------------------------------- format and dialect


def spark_format(location: str) -> str:
    """``parquet``, ``jsonl`` or ``json`` (an array) from the location's name (see the module docstring)."""
    name = location.rstrip("/").rsplit("/", 1)[-1].lower()
    for comp in (".gz", ".bz2", ".zst", ".deflate", ".lz4", ".snappy"):
        if name.endswith(comp) and not name.endswith(".parquet" + comp):
            name = name[: -len(comp)]
            break
    if name.endswith((".parquet", ".pq")) or "." not in name:
        return "parquet"
    if name.endswith((".jsonl", ".ndjson")):
        return "jsonl"
    if name.endswith(".json"):
        local = _local_path(location)
        if local is not None and local.is_file():
            from builder.pairwise.scan import format_of

            return "json" if format_of(local)[0] == "json" else "jsonl"
        return "jsonl"
    raise UserError(f"{location}: the spark engine reads Parquet, JSON Lines or JSON battles "
                    "(.parquet or a folder, .jsonl, .ndjson, .json)")


def _local_path(location: str) -> Path | None:
    if location.startswith("file:"):
        return Path(re.sub(r"^file:(//)?", "", location))
    return None if re.match(r"^[A-Za-z][A-Za-z0-9+.-]*://", location) else Path(location)


def _ident(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"


def spark_string(value: str) -> str:
    """A Spark SQL string literal (Spark reads backslash escapes inside quotes)."""
    return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"


def _path(keys: Sequence[str]) -> str:
    """A variant path ``$.a.b`` (bracketed where a key is not a plain name)."""
    out = "$"
    for k in keys:
        out += f".{k}" if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", k) else "[" + json.dumps(k) + "]"
    return spark_string(out)


_NUMERIC = "('BIGINT', 'INT', 'SMALLINT', 'TINYINT', 'DOUBLE', 'FLOAT')"


def _is_num(x: str) -> str:
    t = f"schema_of_variant({x})"
    return f"({t} IN {_NUMERIC} OR {t} LIKE 'DECIMAL%')"


def _num(x: str) -> str:
    return f"CASE WHEN {_is_num(x)} THEN try_variant_get({x}, '$', 'double') END"


class SparkDialect:
    """The rules' primitives in Spark SQL over one source: a JSON record as the variant ``_mb_v``,
    or Parquet columns with their Spark types (``types``: column -> simpleString)."""

    def __init__(self, kind: str, present: frozenset[str], types: Mapping[str, str],
                 schema: Mapping[str, Any] | None = None) -> None:
        self.kind = kind
        self.present = present
        self.types = types
        self.schema = schema or {}  # Parquet: column -> Spark DataType

    def _variant(self, name: str) -> str | None:
        """The column as a VARIANT (JSON values as read; a Parquet struct, map or JSON text parsed), or None."""
        if name not in self.present:
            return None
        if self.kind != "parquet":
            return f"try_variant_get(_mb_v, {_path([name])})"
        kind = self.types.get(name, "string")
        if kind == "string":
            return f"try_parse_json({_ident(name)})"
        if kind.startswith(("struct", "map")):
            return f"try_parse_json(to_json({_ident(name)}))"
        return None

    def raw(self, name: str) -> str:
        """A column as text, untouched (JSON text of a JSON value; a Parquet value cast to text)."""
        if name not in self.present:
            return "CAST(NULL AS STRING)"
        if self.kind != "parquet":
            return f"to_json({self._variant(name)})"
        return _ident(name) if self.types.get(name) == "string" else f"try_cast({_ident(name)} AS STRING)"

    def text(self, name: str) -> str:
        if name not in self.present:
            return "CAST(NULL AS STRING)"
        if self.kind != "parquet":
            v = self._variant(name)
            return f"CASE WHEN schema_of_variant({v}) = 'STRING' THEN try_variant_get({v}, '$', 'string') END"
        return self.raw(name)

    def number(self, name: str) -> str:
        if name not in self.present:
            return "CAST(NULL AS DOUBLE)"
        if self.kind != "parquet":
            return _num(str(self._variant(name)))
        return f"try_cast({_ident(name)} AS DOUBLE)"

    def integer(self, name: str) -> str:
        if name not in self.present:
            return "CAST(NULL AS BIGINT)"
        if self.kind != "parquet":
            return f"try_cast({_num(str(self._variant(name)))} AS BIGINT)"  # truncation towards zero
        c = _ident(name)
        if self.types.get(name) in ("float", "double") or str(self.types.get(name)).startswith("decimal"):
            return f"try_cast(round({c}) AS BIGINT)"  # DuckDB rounds a typed fraction
        return f"try_cast({c} AS BIGINT)"

    def flag(self, name: str) -> str:
        if name not in self.present:
            return "false"
        if self.kind != "parquet":
            return f"coalesce(to_json({self._variant(name)}) = 'true', false)"
        c = _ident(name)
        if self.types.get(name) == "boolean":
            return f"coalesce({c}, false)"
        return f"coalesce(lower(CAST({c} AS STRING)) IN ('true', '1'), false)"

    def sampled(self) -> str:
        if "dedup_tag" not in self.present:
            return "false"
        kind = self.types.get("dedup_tag", "")
        if self.kind != "parquet":
            return f"coalesce(to_json(try_variant_get(_mb_v, {_path(['dedup_tag', 'sampled'])})) = 'true', false)"
        if kind.startswith("struct") and "sampled:" in kind:
            return "coalesce(try_cast(`dedup_tag`.`sampled` AS BOOLEAN), false)"
        pattern = spark_string("['\"]sampled['\"]\\s*:\\s*(True|true)")
        return f"coalesce(CAST(`dedup_tag` AS STRING) RLIKE {pattern}, false)"

    def _at(self, column: str, keys: Sequence[str]) -> str:
        v = self._variant(column)
        return "CAST(NULL AS VARIANT)" if v is None else f"try_variant_get({v}, {_path(keys)})"

    def tag_true(self, path: tuple[str, ...]) -> str:
        return f"to_json({self._at('category_tag', path)}) = 'true'"

    def tag_true_members(self, path: tuple[str, ...]) -> str:
        v = self._at("category_tag", path)
        return (f"(CASE WHEN schema_of_variant({v}) LIKE 'OBJECT%' THEN size(filter(map_values("
                f"try_variant_get({v}, '$', 'map<string, variant>')), e -> to_json(e) = 'true')) END)")

    def meta_number(self, key: str) -> str:
        return _num(self._at("conv_metadata", [key]))

    def regex(self, expr: str, pattern: str) -> str:
        return f"({expr} RLIKE {spark_string(pattern)})"

    def string(self, value: str) -> str:
        return spark_string(value)

    def _typed_count(self, spec: FeatureSpec) -> tuple[str, str] | None:
        """A count in a typed Parquet struct (``conv_metadata.key`` of numbers or structs of
        numbers), read as typed columns, as the DuckDB reader reads it; None otherwise."""
        if spec.covariate or len(spec.path) != 2 or self.kind != "parquet":
            return None
        head = self.schema.get(spec.path[0])
        if head is None or head.typeName() != "struct":
            return None
        child = _struct_child(head, spec.path[1])
        no_object = f"{_ident(spec.path[0])} IS NULL"
        if child is None:  # the key is not in the struct: missing wherever the object is there
            return "CAST(NULL AS DOUBLE)", f"CASE WHEN {no_object} THEN {FEATURE_NO_OBJECT} ELSE {FEATURE_MISSING} END"
        x = f"{_ident(spec.path[0])}.{_ident(spec.path[1])}"
        typed = _typed_checks(x, child)
        if typed is None:
            return None
        value, checks = typed
        return value, _quality([(no_object, FEATURE_NO_OBJECT), (f"{x} IS NULL", FEATURE_MISSING), *checks])

    # -- features of the styled fit (``scan.FeatureSpec``'s rule over a variant)
    def feature(self, spec: FeatureSpec) -> tuple[str, str]:
        """(value, quality) Spark SQL of a count or covariate feature (``FeatureSpec``)."""
        if spec.sql is not None:
            raise UserError(f"covariate {spec.name!r}: an SQL covariate is DuckDB SQL; on the spark engine "
                            "give it as a column (--covariate-column / covariates: column)")
        typed = self._typed_count(spec)
        if typed is not None:
            return typed
        head = self._variant(spec.path[0])
        nested = len(spec.path) > 1
        if head is None:
            if spec.path[0] in self.present and not nested:  # a typed Parquet number or boolean
                c = _ident(spec.path[0])
                v = f"try_cast({c} AS DOUBLE)"
                bad = f"NOT (isnan({v}) OR abs({v}) = double('infinity'))"
                checks = [(f"{c} IS NULL", FEATURE_MISSING), (f"{v} IS NULL OR NOT {bad}", FEATURE_NON_NUMERIC)]
                if not spec.covariate:
                    checks.append((f"{v} < 0", FEATURE_NEGATIVE))
                return v, _quality(checks)
            missing = FEATURE_NO_OBJECT if nested and not spec.covariate else FEATURE_MISSING
            return "CAST(NULL AS DOUBLE)", str(missing)
        x = f"try_variant_get({head}, {_path(spec.path[1:])})" if nested else head
        t = f"schema_of_variant({x})"
        if spec.covariate:
            v = (f"CASE WHEN {t} = 'BOOLEAN' THEN CASE WHEN to_json({x}) = 'true' THEN 1.0D ELSE 0.0D END "
                 f"WHEN {_is_num(x)} THEN try_variant_get({x}, '$', 'double') END")
            return v, _quality([(f"{x} IS NULL OR {t} = 'VOID'", FEATURE_MISSING),
                                (f"{v} IS NULL OR isnan({v}) OR abs({v}) = double('infinity')",
                                 FEATURE_NON_NUMERIC)])
        members = f"map_values(try_variant_get({x}, '$', 'map<string, variant>'))"
        e_num = _num("e")
        value = (f"CASE WHEN {t} LIKE 'OBJECT%' THEN aggregate({members}, 0.0D, (acc, e) -> acc + "
                 f"coalesce({e_num}, 0.0D)) ELSE {_num(x)} END")
        odd = (f"exists({members}, e -> NOT (schema_of_variant(e) = 'VOID' OR "
               f"coalesce(({_is_num('e')}) AND NOT (isnan({e_num}) OR abs({e_num}) = double('infinity')), false)))")
        neg = f"exists({members}, e -> coalesce({e_num} < 0, false))"
        num = _num(x)
        checks = [
            (f"{head} IS NULL OR schema_of_variant({head}) NOT LIKE 'OBJECT%'" if nested else "false",
             FEATURE_NO_OBJECT),
            (f"{x} IS NULL OR {t} = 'VOID'", FEATURE_MISSING),
            (f"{_is_num(x)} AND (isnan({num}) OR abs({num}) = double('infinity'))", FEATURE_NON_NUMERIC),
            (f"{_is_num(x)} AND {num} < 0", FEATURE_NEGATIVE),
            (f"{_is_num(x)}", FEATURE_OK),
            (f"{t} NOT LIKE 'OBJECT%' OR {odd}", FEATURE_NON_NUMERIC),
            (neg, FEATURE_NEGATIVE),
        ]
        return value, _quality([(c, q) for c, q in checks if c != "false"])


_NUMERIC_TYPES = ("byte", "short", "integer", "long", "float", "double")


def _struct_child(dtype: Any, key: str) -> Any:
    from pyspark.sql.types import StructType

    if not isinstance(dtype, StructType):
        return None
    return next((f.dataType for f in dtype.fields if f.name == key), None)


def _typed_checks(x: str, dtype: Any) -> tuple[str, list[tuple[str, int]]] | None:
    """(value, checks) of a typed Parquet count ``x`` (not NULL): a number, or a struct of
    numbers summed; None for another type (read through JSON)."""
    from pyspark.sql.types import DecimalType, StructType

    name = dtype.typeName()
    if name in _NUMERIC_TYPES or isinstance(dtype, DecimalType):
        v = f"CAST({x} AS DOUBLE)"
        odd = [(f"isnan({v}) OR abs({v}) = double('infinity')", FEATURE_NON_NUMERIC)] if name in ("float",
                                                                                                 "double") else []
        return v, [*odd, (f"{x} < 0", FEATURE_NEGATIVE)]
    if isinstance(dtype, StructType) and all(f.dataType.typeName() in _NUMERIC_TYPES for f in dtype.fields):
        members = [f"{x}.{_ident(f.name)}" for f in dtype.fields]
        value = " + ".join(f"coalesce(CAST({c} AS DOUBLE), 0.0D)" for c in members) or "0.0D"
        odd_members = [f"coalesce(isnan(CAST({c} AS DOUBLE)) OR abs(CAST({c} AS DOUBLE)) = double('infinity'), false)"
               for c, f in zip(members, dtype.fields, strict=True) if f.dataType.typeName() in ("float", "double")]
        neg = [f"coalesce({c} < 0, false)" for c in members]
        checks = [(" OR ".join(odd_members), FEATURE_NON_NUMERIC)] if odd_members else []
        return f"({value})", checks + ([(" OR ".join(neg), FEATURE_NEGATIVE)] if neg else [])
    return None


def _quality(checks: Sequence[tuple[str, int]]) -> str:
    return "CASE " + " ".join(f"WHEN {c} THEN {q}" for c, q in checks) + f" ELSE {FEATURE_OK} END"


# --------------------------------------------------------------------------- the scan


_counter = [0]


def _view_name() -> str:
    _counter[0] += 1
    return f"mb_battles_{_counter[0]}"


@dataclass(frozen=True, slots=True)
class _SparkSource:
    location: str
    kind: str
    frame: DataFrame  # the records: the variant _mb_v (JSON) or the Parquet columns, and _mb_pos
    present: frozenset[str]
    types: Mapping[str, str]
    schema: Mapping[str, Any] = field(default_factory=dict)


def _read_source(spark: SparkSession, location: str) -> _SparkSource:
    from pyspark.sql import functions as F
    from pyspark.sql.utils import AnalysisException

    kind = spark_format(location)
    local = _local_path(location)
    if local is not None and not local.exists():
        raise UserError(f"{location}: battles file not found")
    try:
        if kind == "parquet":
            frame = spark.read.parquet(location)
            types = {f.name: f.dataType.simpleString() for f in frame.schema.fields}
            schema = {f.name: f.dataType for f in frame.schema.fields}
            frame = frame.withColumn("_mb_pos", F.monotonically_increasing_id())
            return _SparkSource(location, kind, frame, frozenset(types), types, schema)
        if kind == "jsonl":
            lines = spark.read.text(location).where(F.trim("value") != "")
            frame = lines.select(F.expr("try_parse_json(value)").alias("_mb_v"), "value",
                                 F.monotonically_increasing_id().alias("_mb_pos"))
        else:
            whole = spark.read.text(location, wholetext=True)
            frame = whole.selectExpr("try_parse_json(value) AS _mb_doc", "value")
            bad = frame.where("_mb_doc IS NULL OR schema_of_variant(_mb_doc) NOT LIKE 'ARRAY%'").limit(1).collect()
            if bad:
                raise UserError(f"{location}: not a JSON array of battles (invalid JSON, or not an array)")
            frame = frame.selectExpr("explode(cast(_mb_doc AS ARRAY<VARIANT>)) AS _mb_v").select(
                "_mb_v", F.expr("to_json(_mb_v)").alias("value"), F.monotonically_increasing_id().alias("_mb_pos"))
        first = frame.limit(1).collect()
    except AnalysisException as exc:
        raise UserError(f"{location}: cannot read battles ({str(exc).splitlines()[0]})") from None
    if not first:
        raise UserError(f"{location}: no battles in file (empty input)")
    broken = frame.where("_mb_v IS NULL OR schema_of_variant(_mb_v) NOT LIKE 'OBJECT%'")
    bad_row = broken.select("value").limit(1).collect()
    if bad_row:
        n_bad = broken.count()
        text = str(bad_row[0][0])[:80]
        raise UserError(f"{location}: {n_bad} record(s) not a JSON object (invalid JSON or another value), "
                        f"first: {text!r}")
    keys = json.loads(first[0]["value"])
    return _SparkSource(location, kind, frame.drop("value"), frozenset(keys), {})


def _check_columns(src: _SparkSource, filters: BattleFilters) -> None:
    check_columns(f"{src.location}: {'schema' if src.kind == 'parquet' else 'record 1'}", src.present, filters)


class SparkScan:
    """A battles dump reduced by Spark: the report, model table and pair counts (as
    ``scan.BattleScan``), and the styled fit's passes over the kept battles."""

    def __init__(self, spark: SparkSession, location: str, filters: BattleFilters,
                 features: Sequence[FeatureSpec] = ()) -> None:
        self.spark = spark
        self.location = location
        src = _read_source(spark, location)
        self.filters = filters = filters.resolve(src.present)
        _check_columns(src, filters)
        self._src = src
        self.source_name = location.rstrip("/").rsplit("/", 1)[-1]
        self.features_spec = tuple(features)
        self.voter_test = None
        d = SparkDialect(src.kind, src.present, src.types, src.schema)
        self._dialect = d
        t_min, t_max = _bounds(filters)
        base = _view_name()
        src.frame.createOrReplaceTempView(base)
        cols = [f"{d.raw('model_a')} AS a", f"{d.raw('model_b')} AS b", f"{d.raw('winner')} AS w",
                f"{d.number('tstamp')} AS t", "_mb_pos AS pos"]
        if filters.voter_column is not None:
            cols.append(f"{d.raw(filters.voter_column)} AS v")
        for k, spec in enumerate(self.features_spec):
            value, quality = d.feature(spec)
            cols += [f"{value} AS x{k}", f"CAST({quality} AS INT) AS q{k}"]
        cols.append(f"CAST({fate_sql(d, filters, t_min, t_max, d.number('tstamp'))} AS INT) AS f0")
        inner = f"SELECT {', '.join(cols)} FROM {base}"
        if filters.voter_column is not None and filters.voter_daily_cap is not None:
            # the cap ranks the votes no filter removed that name a voter, per voter and day
            rank = voter_cap_rank("pos", "v", "t").replace("PARTITION BY ", "PARTITION BY (f0 = 0 AND v IS NOT NULL), ")
            fate = (f"CASE WHEN f0 = 0 AND v IS NOT NULL AND {rank} > {int(filters.voter_daily_cap)} "
                    f"THEN {FILTER_STATUS['voter_cap']} ELSE f0 END")
        else:
            fate = "f0"
        self._rows = _view_name()
        spark.sql(f"SELECT *, {fate} AS f FROM ({inner})").createOrReplaceTempView(self._rows)
        self._summarise()

    def _summarise(self) -> None:
        groups = self.spark.sql(f"SELECT a, b, w, f, count(*) AS n, min(pos) AS p FROM {self._rows} "
                                "GROUP BY a, b, w, f").collect()
        raw_names = sorted({r["a"] for r in groups if r["a"] is not None} | {r["b"] for r in groups
                                                                           if r["b"] is not None})
        raw_winners = sorted({r["w"] for r in groups if r["w"] is not None})
        name_at = {v: k for k, v in enumerate(raw_names)}
        winner_at = {v: k for k, v in enumerate(raw_winners)}

        def idx(table: dict[str, int], v: str | None) -> int:
            return -1 if v is None else table[v]

        cols = np.array([(idx(name_at, r["a"]), idx(name_at, r["b"]), idx(winner_at, r["w"]), r["f"], r["n"], r["p"])
                         for r in groups], dtype=np.int64).reshape(-1, 6)
        decode = (lambda vs: [_json_value(v) for v in vs]) if self._src.kind != "parquet" else list
        self._raw_names, self._raw_winners = raw_names, raw_winners
        sm: GroupSummary = summarise_groups(decode(raw_names), decode(raw_winners), *cols.T,
                                            enabled=enabled_filters(self.filters), source=self.source_name,
                                            where=self.location)
        self.report: BattleReport = sm.report
        self.models: tuple[str, ...] = sm.models
        self._sm = sm

    def pair_counts(self) -> PairCounts:
        """Kept battles per unordered pair (the same as the DuckDB reader's)."""
        ca, cb, o, n = self._sm.pair_groups
        key, cell = _pair_cells(ca, cb, o, len(self.models))
        return _pair_counts(self.models, key, cell, n)

    def summary(self) -> BattleSummary:
        ca, cb, o, n = self._sm.pair_groups
        return compute_battle_summary(self.models, ca, cb, o, n)

    # -- the styled fit
    def _coded_view(self) -> str:
        """The kept battles with model codes ``ca``, ``cb`` and outcome ``o`` (small lookup tables
        of the raw values, broadcast)."""
        from pyspark.sql import functions as F

        sm = self._sm
        names = [(raw, int(code)) for raw, code in zip(self._raw_names, sm.raw_code[:-1], strict=True) if code >= 0]
        winners = [(raw, int(code)) for raw, code in zip(self._raw_winners, sm.winner_code[:-1], strict=True)
                   if code >= 0]
        nt = self.spark.createDataFrame(names, "raw STRING, code INT")
        wt = self.spark.createDataFrame(winners, "raw STRING, o INT")
        rows = self.spark.table(self._rows).where("f = 0")
        coded = (rows.join(F.broadcast(nt.withColumnRenamed("raw", "a").withColumnRenamed("code", "ca")), "a")
                 .join(F.broadcast(nt.withColumnRenamed("raw", "b").withColumnRenamed("code", "cb")), "b")
                 .join(F.broadcast(wt.withColumnRenamed("raw", "w")), "w")
                 .where("ca <> cb"))
        view = _view_name()
        coded.createOrReplaceTempView(view)
        return view


def _json_value(text: str | None) -> Any:
    try:
        return None if text is None else json.loads(text)
    except ValueError:
        return None


# --------------------------------------------------------------------------- styled fit on Spark


@dataclass(frozen=True, eq=False, slots=True)
class SparkStyled:
    """The style-controlled fit computed by Spark: the fit, its sandwich intervals, the style
    report, the standardisation and the per-model counts of the fitted battles."""

    fit: StyledFit
    intervals: StyledIntervals | None
    report: StyleReport
    mean: np.ndarray
    std: np.ndarray
    counts: PairCounts  # the battles with usable covariates, per pair
    passes: int  # passes over the battles


def fit_styled_spark(scan: SparkScan, features: Sequence[str], covariates: Sequence[str], *, reweight: bool = False,
                     ci: str = "sandwich", anchor: tuple[str, float] | None = None, init: float = 1000.0,
                     on_unidentifiable: str = "raise") -> SparkStyled:
    """The contextual (style-controlled) fit of ``builder.pairwise.styled`` over a Spark scan
    opened with the style features' and covariates' specs: the same standardisation, weights,
    Newton iterations and sandwich, each pass's sums computed by Spark."""
    from builder.pairwise.style import _KIND_OF_QUALITY

    if ci != "sandwich":
        raise UserError("the spark engine gives the styled fit sandwich intervals (--ci sandwich): a bootstrap "
                        "of the battles would pass over them once a round")
    spark = scan.spark
    coded = scan._coded_view()
    specs = {s.name: k for k, s in enumerate(scan.features_spec)}
    kinds = "array(" + ", ".join(str(int(v)) for v in _KIND_OF_QUALITY) + ")"
    # the battle's kind: the worst over its columns (a style feature reads both sides)
    parts, quals = [], []
    for feat in features:
        ka, kb = specs[f"{feat}_a"], specs[f"{feat}_b"]
        xa, xb = f"x{ka}", f"x{kb}"
        parts.append(f"({xa} - {xb}) / CASE WHEN {xa} + {xb} = 0 THEN 1.0D ELSE {xa} + {xb} END")
        quals += [f"q{ka}", f"q{kb}"]
    for name in covariates:
        parts.append(f"x{specs[name]}")
        quals.append(f"q{specs[name]}")
    status = "greatest(" + ", ".join(f"element_at({kinds}, {q} + 1)" for q in quals) + ")" if len(quals) > 1 \
        else f"element_at({kinds}, {quals[0]} + 1)"
    k = len(parts)
    # The kept battles' codes, kind and raw covariates, computed once and kept (memory, then
    # disk) for every pass below: a pass reads k + 3 numbers a battle, not the dump.
    design = spark.sql(f"SELECT CAST(ca AS INT) AS ca, CAST(cb AS INT) AS cb, CAST(o AS TINYINT) AS o, "
                       f"CAST({status} AS TINYINT) AS s, pos, "
                       + ", ".join(f"CAST({p} AS DOUBLE) AS z{j}" for j, p in enumerate(parts)) + f" FROM {coded}")
    from pyspark import StorageLevel

    design = design.persist(StorageLevel.MEMORY_AND_DISK)
    try:
        return _fit_design(scan, design, k, features, covariates, reweight=reweight, anchor=anchor, init=init,
                           on_unidentifiable=on_unidentifiable)
    finally:
        design.unpersist()


def _fit_design(scan: SparkScan, design: DataFrame, k: int, features: Sequence[str], covariates: Sequence[str], *,
                reweight: bool, anchor: tuple[str, float] | None, init: float, on_unidentifiable: str) -> SparkStyled:
    from builder.pairwise.sandwich import MIN_PAIR
    from builder.pairwise.style import STYLE_ROW_KINDS, StyleReport, count_status
    from builder.pairwise.styled import REG, fit_styled_sums, sandwich_styled_sums

    by_status = design.groupBy("s").agg({"*": "count", "pos": "min"}).collect()
    status_counts = np.zeros(len(STYLE_ROW_KINDS), dtype=np.int64)
    first_pos: dict[int, int] = {}
    for r in by_status:
        status_counts[int(r["s"])] = int(r["count(1)"])
        first_pos[int(r["s"])] = int(r["min(pos)"])
    first_bad = None
    malformed = [STYLE_ROW_KINDS.index(x) for x in ("negative_count", "non_numeric_count")]
    bad = [(first_pos[q], q) for q in malformed if q in first_pos]
    if bad:
        pos, q = min(bad)
        first_bad = f"{scan.source_name}: record at position {pos} ({STYLE_ROW_KINDS[q].replace('_', ' ')})"
    report = StyleReport(tuple([*features, *covariates]), count_status(np.repeat(
        np.arange(len(STYLE_ROW_KINDS)), status_counts).astype(np.int8)), first_bad)
    n = int(status_counts[0])
    if n == 0:
        raise UserError(f"{scan.location}: no battle has usable conv_metadata for {', '.join(report.features)}")
    usable = design.where("s = 0")
    # the standardisation over the usable battles: mean and population standard deviation
    moments = usable.selectExpr(*[f"avg(z{j}) AS m{j}" for j in range(k)],
                                *[f"stddev_pop(z{j}) AS s{j}" for j in range(k)]).collect()[0]
    mean = np.array([float(moments[f"m{j}"]) for j in range(k)])
    std = np.array([float(moments[f"s{j}"]) for j in range(k)])
    std = np.where(std == 0, 1.0, std)
    pair_rows = usable.groupBy("ca", "cb", "o").count().collect()
    m_models = len(scan.models)
    ca = np.array([r["ca"] for r in pair_rows], dtype=np.int64)
    cb = np.array([r["cb"] for r in pair_rows], dtype=np.int64)
    o = np.array([r["o"] for r in pair_rows], dtype=np.int64)
    cnt = np.array([r["count"] for r in pair_rows], dtype=np.int64)
    key, cell = _pair_cells(ca, cb, o, m_models)
    counts = _pair_counts(scan.models, key, cell, cnt)
    weight = np.ones((m_models, m_models))
    if reweight:
        per_pair = counts.totals()
        w_pair = 1.0 / np.maximum(per_pair, float(MIN_PAIR))
        w_pair /= float((w_pair * per_pair).sum() / n)  # mean 1 over the battles
        weight[counts.i, counts.j] = w_pair
        weight[counts.j, counts.i] = w_pair
    passes = [0]
    sums = _spark_sums(usable.select("ca", "cb", "o", *[f"z{j}" for j in range(k)]), k, mean, std, weight, passes)
    fit = fit_styled_sums(counts, n, tuple(report.features), sums, reg=REG, anchor=anchor, init=init,
                          on_unidentifiable=on_unidentifiable)  # type: ignore[arg-type]
    intervals = sandwich_styled_sums(fit, n, sums)
    return SparkStyled(fit, intervals, report, mean, std, counts, passes[0])


def _spark_sums(design: DataFrame, k: int, mean: np.ndarray, std: np.ndarray, weight: np.ndarray,
                passes: list[int]) -> Any:
    """``styled.Sums`` over a Spark frame of battles (codes, outcome, raw covariates): each
    partition standardises its covariates (``(z - mean) / std``, as in process) and runs the
    pass (`styled._pass`) on its battles (Arrow batches to numpy); the partial sums are tree-reduced."""

    def sums(local: np.ndarray, x: np.ndarray, m: int, mode: int, w: np.ndarray | None = None) -> Any:
        if w is not None:
            raise ValueError("per-battle weights are not kept on the cluster")
        d = m + k
        size = 1 + d + (d * d if mode >= 1 else 0) + (d * d if mode == 2 else 0)

        def part(batches: Iterator[Any]) -> Iterator[Any]:
            import pyarrow as pa

            from builder.pairwise.styled import _pass

            total = np.zeros(size)
            for batch in batches:
                if batch.num_rows == 0:
                    continue
                a = batch.column("ca").to_numpy(zero_copy_only=False).astype(np.int32)
                b = batch.column("cb").to_numpy(zero_copy_only=False).astype(np.int32)
                o = batch.column("o").to_numpy(zero_copy_only=False).astype(np.int8)
                f = np.empty((batch.num_rows, k))
                for j in range(k):
                    f[:, j] = batch.column(f"z{j}").to_numpy(zero_copy_only=False)
                f -= mean
                f /= std
                wi = weight[a, b]
                loss, grad, hess, gcov = _pass(a, b, o, wi, f, local, x, m, mode)
                total[0] += loss
                total[1:1 + d] += grad
                if mode >= 1:
                    total[1 + d:1 + d + d * d] += hess.ravel()
                if mode == 2:
                    total[1 + d + d * d:] += gcov.ravel()
            yield pa.RecordBatch.from_pydict({"s": pa.array([total.tobytes()], type=pa.binary())})

        passes[0] += 1
        parts = design.mapInArrow(part, "s binary").rdd.map(lambda r: np.frombuffer(r[0], dtype=np.float64))
        total = parts.treeReduce(lambda u, v: u + v, depth=2)
        loss = float(total[0])
        grad = total[1:1 + d].copy()
        hess = total[1 + d:1 + d + d * d].reshape(d, d).copy() if mode >= 1 else np.zeros((1, 1))
        gcov = total[1 + d + d * d:].reshape(d, d).copy() if mode == 2 else np.zeros((1, 1))
        return loss, grad, hess, gcov

    return sums


def styled_table_spark(res: SparkStyled, *, reweight: bool, anchor: tuple[str, float] | None) -> Any:
    """``arena_style.StyledTable`` of a Spark styled fit (rows, coefficients, method)."""
    from builder.pairwise.arena_style import styled_table

    played, wins, ties = res.counts.per_model()
    return styled_table(res.fit, res.intervals, played, wins, ties, res.mean, res.std, reweight=reweight,
                        ci="sandwich", bootstrap=0, seed=0, anchor=anchor)


__all__ = ["LOCAL_DEFAULTS", "SparkDialect", "SparkScan", "SparkSettings", "SparkStyled", "fit_styled_spark",
           "spark_format", "spark_session", "spark_string", "styled_table_spark"]
