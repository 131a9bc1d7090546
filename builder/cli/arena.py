"""``modelboards arena [pipeline|simulate|fit|leaderboard|history|judge]``: the pairwise tools
on the command line.

Registered on the main group with ``main.add_command(arena)``. ``modelboards arena`` with no
subcommand runs ``pipeline``, the offline demo (``builder.pairwise.demo``). Every user error
(bad file, missing column, missing API key, no finite rating) ends in one line and exit code 2.

The bundled demo battles are made with::

    modelboards arena simulate --models-from builder/data/demo/arena/leaderboard-text.json \\
        --n 30000 --seed 7 --start 2026-05-01 --end 2026-11-25 --debut-spread 0.6 \\
        --anony-share 0.85 --style-effect tokens=1.2 --style-effect bold=0.4 \\
        --verbose-model qwen4-32b=1.2 --output builder/data/demo/battles/clean_battle_demo.jsonl

Their true style effect: logit P(A wins) gains 1.2 (f_tokens) + 0.4 (f_bold), f the raw
feature (x_A - x_B) / (x_A + x_B); ``qwen4-32b`` writes answers about e^1.2 = 3.3 times as
long as a typical model, so it wins more than its skill says (see ``builder.pairwise.simulate``).
"""

from __future__ import annotations

import csv
import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import click

from builder.cli.context import Group
from builder.errors import UserError
from builder.util.io import compact_json, write_atomic

_DATE = click.DateTime(formats=["%Y-%m-%d"])


@click.group(cls=Group, invoke_without_command=True, context_settings={"help_option_names": ["-h", "--help"]})
@click.pass_context
def arena(ctx: click.Context) -> None:
    """Arena: Bradley-Terry ratings, intervals and history from pairwise battles.

    Without a command: the offline demo (same as `arena pipeline`)."""
    if ctx.invoked_subcommand is None:
        ctx.invoke(pipeline)


def _write_rows(path: Path, rows: list[dict[str, Any]], columns: Iterable[str]) -> None:
    columns = list(columns)
    suffix = path.suffix.lower()
    if suffix == ".json":
        write_atomic(path, lambda f: f.write(json.dumps(rows, indent=1, ensure_ascii=False) + "\n"))
    elif suffix == ".csv":
        def w(f):
            writer = csv.DictWriter(f, fieldnames=columns, extrasaction="ignore", lineterminator="\n")
            writer.writeheader()
            for r in rows:
                writer.writerow({k: "" if r.get(k) is None else r.get(k) for k in columns})

        write_atomic(path, w, newline="")
    else:
        raise UserError(f"{path}: output must end in .json or .csv")


def _parse_anchor(value: str | None) -> tuple[str, float] | None:
    if not value:
        return None
    name, sep, rating = value.rpartition("=")
    try:
        if not sep or not name:
            raise ValueError
        return name, float(rating)
    except ValueError:
        raise UserError(f"--anchor {value!r}: expected MODEL=RATING, e.g. gpt-6=1400") from None


def _pairs(option: str, values: Iterable[str]) -> dict[str, float]:
    """NAME=NUMBER values of a repeatable option."""
    out: dict[str, float] = {}
    for v in values:
        name, sep, num = v.rpartition("=")
        try:
            if not sep or not name:
                raise ValueError
            out[name] = float(num)
        except ValueError:
            raise UserError(f"{option} {v!r}: expected NAME=NUMBER") from None
    return out


def _filters(anony_only: bool, dedup: bool, language: str | None, min_date, max_date, min_turn: int | None,
             all_votes: bool = False, voter_cap: int | None = None, anomalous_voters: float | None = None,
             voter_column: str | None = None):
    from builder.pairwise.battles import BattleFilters

    return BattleFilters(
        official=not all_votes,
        voter_daily_cap=voter_cap,
        anomaly_fpr=anomalous_voters,
        voter_column=voter_column,
        anony_only=anony_only,
        dedup_sampled=dedup,
        language=language,
        min_date=min_date.date() if min_date else None,
        max_date=max_date.date() if max_date else None,
        min_turn=min_turn,
    )


def _filter_options(f):
    f = click.option("--min-turn", type=int, default=None, help="Keep conversations with at least this many turns.")(f)
    f = click.option("--max-date", type=_DATE, default=None, help="Keep votes up to this UTC day (inclusive).")(f)
    f = click.option("--min-date", type=_DATE, default=None, help="Keep votes from this UTC day.")(f)
    f = click.option("--language", default=None, help="Keep one conversation language (exact, e.g. English).")(f)
    f = click.option("--dedup", is_flag=True, help="Keep rows whose dedup_tag says sampled (the column must exist).")(f)
    f = click.option("--voter-column", default=None,
                     help="Column naming the voter (default: judge, session_id, sess_id, voter or user_id).")(f)
    f = click.option("--anomalous-voters", type=click.FloatRange(0, 0.5, min_open=True, max_open=True), default=None,
                     metavar="FPR", help="Drop voters whose votes the fitted model finds anomalous, at this "
                                         "false-positive rate for an honest voter.")(f)
    f = click.option("--voter-cap", type=click.IntRange(1), default=None, metavar="N",
                     help="Keep each voter's first N votes of each UTC day.")(f)
    f = click.option("--all-votes", is_flag=True,
                     help="Turn off the official filters (by default: anonymous votes only and duplicate-tagged "
                          "prompts dropped, where the file has the anony / dedup_tag column).")(f)
    f = click.option("--anony-only", is_flag=True, help="Keep anonymous (blind) votes only.")(f)
    return f


def _init_option(f):
    return click.option("--init-rating", "init_rating", type=float, default=1000.0, show_default=True,
                        help="Centre of the rating scale: each group's mean Bradley-Terry rating and the "
                             "online Elo start.")(f)


def _sample_option(f):
    return click.option("--sample", type=click.IntRange(1), default=None,
                        help="Use a random sample of N battles (seeded by --seed), in file order.")(f)


def _board_options(top_n_default: int | None = 20):
    def deco(f):
        f = click.option("--format", "fmt", type=click.Choice(["table", "markdown", "csv"]), default="table",
                         show_default=True, help="How to print the leaderboard.")(f)
        f = click.option("--top-n", type=click.IntRange(1), default=top_n_default, show_default=True,
                         help="Models to print (the footer counts them all).")(f)
        return f
    return deco


def _sample_rows(total: int, n: int | None, seed: int):
    """The rows ``--sample`` keeps (None: all), with its note on stderr."""
    from builder.pairwise.sampling import sample_rows

    rows, note = sample_rows(total, n, seed)
    if note is not None:
        click.echo(note.line(), err=True)
    return rows


def _apply_sample(battles, n: int | None, seed: int):
    rows = _sample_rows(len(battles), n, seed)
    return battles if rows is None else battles.take(rows)


def _board_from_rows(rows: list[dict[str, Any]], source: str):
    from builder.pairwise.leaderboard import leaderboard_from_records

    return leaderboard_from_records(rows, source)


def _reader_options(f):
    f = click.option("--threads", type=click.IntRange(1), default=None,
                     help="DuckDB threads for the scan (default: site.yml arena.reader.threads, "
                     "else one per core).")(f)
    f = click.option("--temp-dir", type=click.Path(file_okay=False), default=None,
                     help="DuckDB spill folder (default: site.yml arena.reader.temp_directory, "
                     "else the system temp).")(f)
    f = click.option("--memory-limit", default=None,
                     help="DuckDB memory limit, e.g. 512MB (default: site.yml arena.reader.memory_limit, "
                     "else 512MB).")(f)
    return f


def _reader_settings(memory_limit: str | None, temp_dir: str | None, threads: int | None):
    """Reader settings: the options given, else ``site.yml``'s ``arena.reader`` when the
    configuration file exists, else the defaults (``builder.cli.reader``)."""
    from builder.cli.reader import reader_settings_for

    return reader_settings_for(memory_limit, temp_dir, threads)


def _report_line(report, models, official: bool | None = None, voters=None) -> str:
    """The read's summary line; ``official``: whether the official filters were asked for."""
    rep = report
    bad = ", ".join(f"{k} {v}" for k, v in rep.bad_rows.items() if v) or "none"
    removed = ", ".join(f"{k} {v}" for k, v in rep.removed.items()) or "no filters"
    line = (f"{rep.source}: {rep.rows_read} rows, {rep.rows_kept} battles, {len(models)} models; "
            f"bad rows: {bad}; removed: {removed}")
    if official is None and voters is None:
        return line
    if not official:
        return line + " (official filters off: --all-votes)"
    if voters is not None:
        line += (f"; anomalous voters: {len(voters.flagged)} of {voters.tested} tested flagged "
                 f"(fpr {voters.fpr:g}), {voters.rows_removed} votes removed")
    ran = [k for k in ("anony", "dedup") if k in rep.removed]
    if not ran:
        return line + " (official filters: the file has no anony or dedup_tag column)"
    return line + f" (official filters: {' and '.join(ran)})"


def _echo_scan(scan, official: bool | None = None) -> None:
    """On stderr: the report line (``official``: whether the official filters were asked for),
    then what the kept battles hold (outcome distribution and the ten models that appear most)."""
    from builder.pairwise.summary import render_battle_summary

    click.echo(_report_line(scan.report, scan.models, official, scan.voter_test), err=True)
    for line in render_battle_summary(scan.summary()):
        click.echo(line, err=True)


def _read_for_fit(input_path, filters, settings, method: str, sample: int | None, seed: int):
    """What the fit needs from the battles file, through the DuckDB reader: Bradley-Terry
    without a sample needs only the pair counts (one GROUP BY); online Elo and ``--sample``
    need the battle sequence."""
    from builder.pairwise.scan import scan_battles

    counts_only = method == "bt" and sample is None
    with scan_battles(input_path, filters, settings, times=not counts_only) as scan:
        _echo_scan(scan, filters.official)
        if counts_only:
            return scan.pair_counts()
        battles = scan.battles()
    return _apply_sample(battles, sample, seed)


def _covariates(exprs: Iterable[str], columns: Iterable[str]) -> list[Any]:
    """``--covariate NAME=SQL`` and ``--covariate-column NAME=KEY[/KEY]`` -> scan covariate specs
    (the expressions first, then the columns, each in the order given)."""
    from builder.pairwise.scan import covariate_spec

    out = []
    for option, values, key in (("--covariate", exprs, "sql"), ("--covariate-column", columns, "column")):
        for v in values:
            name, sep, body = v.partition("=")
            name, body = name.strip(), body.strip()
            if not sep or not name or not body or not name.replace("_", "a").isalnum():
                raise UserError(f"{option} {v!r}: expected NAME={'SQL' if key == 'sql' else 'COLUMN'}")
            out.append(covariate_spec(name, **{key: body}))
    names = [c.name for c in out]
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise UserError(f"covariate names repeated: {', '.join(dup)}")
    return out


def _read_for_styled(input_path, filters, settings, features: tuple[str, ...], sample: int | None, seed: int,
                     covariates: list[Any] | None = None):
    """Battles and their contextual columns (``conv_metadata`` style counts, then covariates)
    from one scan of the file."""
    from builder.pairwise.scan import format_of, scan_battles
    from builder.pairwise.style import contextual_battles, stream_contextual_battles, style_feature_specs

    covariates = covariates or []
    if format_of(Path(input_path))[0] == "csv" and features:
        raise UserError(f"{input_path}: a CSV battles file carries no conv_metadata; the style-controlled fit needs "
                        "JSON, JSON Lines or Parquet (or --style-features none with --covariate)")
    streamed = stream_contextual_battles(input_path, filters, settings, features, covariates)
    if streamed is not None:  # JSON without voter safeguards: one streamed pass, no scan table
        read, battles, styles = streamed
        _echo_scan(read, filters.official)
        rows = _sample_rows(len(battles), sample, seed)
        return (battles, styles) if rows is None else (battles.take(rows), styles.take(rows))
    # times=False: the styled fit needs no battle times (a date filter still reads them)
    with scan_battles(input_path, filters, settings, features=[*style_feature_specs(features), *covariates],
                      times=False) as scan:
        _echo_scan(scan, filters.official)
        battles, styles = contextual_battles(scan, features, [c.name for c in covariates])  # one pass
    rows = _sample_rows(len(battles), sample, seed)
    return (battles, styles) if rows is None else (battles.take(rows), styles.take(rows))


@arena.command()
@click.option("--models-from", type=click.Path(dir_okay=False), default=None,
              help="LMArena leaderboard JSON whose ratings are the latent skills.")
@click.option("--category", default=None, help="Leaderboard category (default: full, else text).")
@click.option("--models", "models_opt", default=None, metavar="N|a,b,c",
              help="Instead: N models with random skills ~ N(centre, 120), or comma-separated names spaced "
                   "60 points apart, first strongest. Default: a roster of eight models.")
@click.option("--n", "n_battles", type=click.IntRange(1), default=10_000, show_default=True, help="Battles to draw.")
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--tie-prob", type=float, default=0.1, show_default=True)
@click.option("--zipf", "zipf_exponent", type=float, default=1.0, show_default=True, help="Popularity exponent.")
@click.option("--start", type=_DATE, default="2026-01-01", show_default=True, help="First UTC day.")
@click.option("--end", type=_DATE, default="2026-03-31", show_default=True, help="Last UTC day.")
@click.option("--debut-spread", type=float, default=0.0, show_default=True,
              help="Models debut over this leading fraction of the range (0: all at the start).")
@click.option("--anony-share", type=float, default=1.0, show_default=True, help="Share of anonymous votes.")
@_init_option
@click.option("--output", type=click.Path(dir_okay=False), required=True, help="Battles file (.jsonl or .json).")
@click.option("--truth-output", type=click.Path(dir_okay=False), default=None, help="Also write {model: skill} JSON.")
@click.option("--style-effect", multiple=True, metavar="FEATURE=BETA",
              help="Write conv_metadata with this true style effect (log-odds per unit of the raw feature); "
                   "repeatable.")
@click.option("--verbose-model", multiple=True, metavar="MODEL=V",
              help="With --style-effect: this model's verbosity (log tokens; others ~ N(0, 0.2^2)); repeatable.")
def simulate(models_from, category, models_opt, n_battles, seed, tie_prob, zipf_exponent, start, end, debut_spread,
             anony_share, init_rating, output, truth_output, style_effect, verbose_model) -> None:
    """Simulate battles from known latent skills (clean_battle schema, with conv_metadata
    when --style-effect is given); prints the true skills."""
    from builder.pairwise.demo import describe_skills, parse_models_option, skills_for
    from builder.pairwise.simulate import StyleSpec, simulate_battles, skills_from_leaderboard

    models = parse_models_option(models_opt)
    if models_from is not None and models is not None:
        raise UserError("simulate: give at most one of --models-from FILE and --models N|a,b,c")
    if verbose_model and not style_effect:
        raise UserError("simulate: --verbose-model needs --style-effect")
    skills = (skills_from_leaderboard(models_from, category) if models_from
              else skills_for(models, centre=init_rating, seed=seed))
    style = None
    if style_effect:
        style = StyleSpec(effect=_pairs("--style-effect", style_effect),
                          verbose=_pairs("--verbose-model", verbose_model))
    sim = simulate_battles(
        skills, n_battles, seed=seed, tie_prob=tie_prob, zipf_exponent=zipf_exponent, start=start.date(),
        end=end.date(), debut_spread=debut_spread, anony_share=anony_share, style=style,
    )
    out = Path(output)
    suffix = out.suffix.lower()
    if suffix in (".jsonl", ".ndjson"):
        def w(f):
            f.writelines(compact_json(row) for row in sim.rows())
    elif suffix == ".json":
        def w(f):
            f.write("[\n")
            for k, row in enumerate(sim.rows()):
                f.write((",\n" if k else "") + json.dumps(row, ensure_ascii=False))
            f.write("\n]\n")
    else:
        raise UserError(f"{out}: output must end in .jsonl or .json")
    write_atomic(out, w)
    if truth_output:
        truth: dict[str, Any] = {m: round(float(s), 3) for m, s in zip(sim.models, sim.skills, strict=True)}
        if style is not None:
            truth = {"skills": truth, "style_effect": dict(style.effect), "verbose": dict(style.verbose)}
        write_atomic(Path(truth_output), lambda f: f.write(json.dumps(truth, indent=1) + "\n"))
    click.echo("true skills (Arena scale) the battles were drawn from:")
    for line in describe_skills(skills):
        click.echo(line)
    click.echo(f"{out}: {n_battles} battles among {len(sim.models)} models")


def _fit_options(f):
    f = click.option("--workers", type=click.IntRange(1), default=None,
                     help="Bootstrap processes (default: all cores for big jobs).")(f)
    f = click.option("--k", "elo_k", type=float, default=4.0, show_default=True, help="Online Elo step (elo).")(f)
    f = _init_option(f)
    f = click.option("--anchor", default=None, help="MODEL=RATING: shift so this model has this rating (bt).")(f)
    f = click.option("--seed", type=int, default=0, show_default=True,
                     help="Seed of the bootstrap (and of --sample).")(f)
    f = click.option("--bootstrap", type=click.IntRange(0), default=0, show_default=True,
                     help="Bootstrap rounds for 95% intervals.")(f)
    f = click.option("--method", type=click.Choice(["bt", "elo"]), default="bt", show_default=True,
                     help="bt: Bradley-Terry MLE; elo: online Elo (k=4).")(f)
    return f


def _style_options(f):
    f = click.option("--ci", "ci_kind", type=click.Choice(["sandwich", "bootstrap"]), default=None,
                     help="95% intervals: the sandwich estimator, or --bootstrap rounds "
                          "(default: bootstrap when --bootstrap is given, else sandwich with --style-control).")(f)
    f = click.option("--covariate-column", "covariate_columns", multiple=True, metavar="NAME=KEY[/KEY]",
                     help="A covariate read from a battle column (a number, or a boolean as 1/0); repeatable.")(f)
    f = click.option("--covariate", "covariate_sql", multiple=True, metavar="NAME=SQL",
                     help="A covariate of the style-controlled fit: a DuckDB expression over the battle's columns "
                          "(e.g. is_direct=\"CAST(is_direct AS BOOLEAN)::INT\"); repeatable.")(f)
    f = click.option("--reweight", is_flag=True,
                     help="LMArena's inverse-frequency weights 1 / max(battles of the pair, 50).")(f)
    f = click.option("--style-features", default=None,
                     help="Comma-separated style features (default: tokens,headers,bold,lists; none: only the "
                          "--covariate ones).")(f)
    f = click.option("--style-control", is_flag=True,
                     help="Style-controlled Bradley-Terry: covariates for answer length and markdown from "
                          "conv_metadata.")(f)
    return f


def _fit_battles(battles, method, bootstrap, seed, anchor, elo_k, init_rating, workers, reweight=False,
                 ci_kind="bootstrap"):
    from builder.pairwise.arena import fit_rating_table

    rows, info = fit_rating_table(
        battles, method=method, bootstrap=bootstrap, seed=seed, anchor=_parse_anchor(anchor), elo_k=elo_k,
        workers=workers, init=init_rating, reweight=reweight, ci=ci_kind,
    )
    if len(info.get("components", ())) > 1:
        sizes = ", ".join(str(len(c)) for c in info["components"])
        click.echo(f"note: the battle graph has {len(info['components'])} disconnected components ({sizes} models); "
                   f"each is centred on {init_rating:g} and ranked on its own", err=True)
    if info.get("degenerate_rounds"):
        click.echo(f"note: {info['degenerate_rounds']} bootstrap rounds left some model without a finite rating",
                   err=True)
    return rows


@arena.command()
@click.option("--input", "input_path", type=str, required=True,
              help="Battles file: .json, .jsonl, .csv or .parquet (spark engine: any path Spark reads, "
                   "a Parquet folder too).")
@_fit_options
@_style_options
@_sample_option
@_filter_options
@_reader_options
@_board_options(top_n_default=None)
@click.option("--output", type=click.Path(dir_okay=False), default=None,
              help="Also write the rows to F.json or F.csv (the leaderboard is printed either way).")
@click.option("--spark-master", default=None, metavar="URL",
              help="Spark master for --engine spark: local[*], spark://host:7077, yarn, databricks:PROFILE "
                   "(default: site.yml arena.spark.master, else local[*]).")
@click.option("--engine", type=click.Choice(["duckdb", "spark"]), default=None,
              help="What reduces the battles: DuckDB in process, or Apache Spark where they are kept "
                   "(default: site.yml arena.engine, else duckdb).")
def fit(input_path, method, bootstrap, seed, anchor, init_rating, elo_k, workers, style_control, style_features,
        reweight, ci_kind, sample, anony_only, dedup, language, min_date, max_date, min_turn, memory_limit, temp_dir,
        threads, top_n, fmt, output, all_votes=False, voter_cap=None, anomalous_voters=None,
        voter_column=None, covariate_sql=(), covariate_columns=(), engine=None, spark_master=None) -> None:
    """Fit ratings: one row per model with rating, median, lower, upper, rank, rank_ub,
    battles, wins, ties, win_rate. Prints the leaderboard; --output also writes the rows. With
    --style-control the JSON output is {"rows": [...], "style": [{feature, beta, lower,
    upper, mean, std}], "method": {...}}."""
    from builder.pairwise.arena import TABLE_COLUMNS
    from builder.pairwise.leaderboard import render_leaderboard

    if ci_kind == "sandwich" and bootstrap:
        raise UserError("--ci sandwich and --bootstrap N: choose one kind of interval")
    if ci_kind is None:
        ci_kind = "bootstrap" if bootstrap else ("sandwich" if style_control else "bootstrap")
    if style_features is not None and not style_control:
        raise UserError("--style-features needs --style-control")
    if (covariate_sql or covariate_columns) and not style_control:
        raise UserError("--covariate and --covariate-column need --style-control (the contextual fit)")
    if style_control and method != "bt":
        raise UserError("--style-control fits Bradley-Terry: drop --method elo")
    filters = _filters(anony_only, dedup, language, min_date, max_date, min_turn, all_votes, voter_cap,
                       anomalous_voters, voter_column)
    from builder.cli.reader import engine_for

    engine, spark_settings = engine_for(engine, spark_master)
    if engine == "spark":
        _fit_on_spark(input_path, spark_settings, filters, method, bootstrap, seed, anchor, init_rating, workers,
                      style_control, style_features, reweight, ci_kind, sample, covariate_sql, covariate_columns,
                      top_n, fmt, output)
        return
    settings = _reader_settings(memory_limit, temp_dir, threads)
    if style_control:
        from builder.pairwise.style import parse_style_features

        features = () if style_features == "none" else parse_style_features(style_features)
        covariates = _covariates(covariate_sql, covariate_columns)
        if not features and not covariates:
            raise UserError("--style-features none needs at least one --covariate or --covariate-column")
        battles, styles = _read_for_styled(input_path, filters, settings, features, sample, seed, covariates)
        _fit_styled(input_path, battles, styles, reweight, ci_kind, bootstrap, seed, anchor, init_rating, top_n,
                    fmt, output)
        return
    battles = _read_for_fit(input_path, filters, settings, method, sample, seed)
    rows = _fit_battles(battles, method, bootstrap, seed, anchor, elo_k, init_rating, workers, reweight, ci_kind)
    out_rows = [{k: r[k] for k in TABLE_COLUMNS} for r in rows]
    if output:
        _write_rows(Path(output), out_rows, TABLE_COLUMNS)
        click.echo(f"{output}: {len(out_rows)} models", err=True)
    board = _board_from_rows(rows, str(input_path))
    click.echo(render_leaderboard(board, top_n=top_n, fmt=fmt), nl=False)


def _fit_on_spark(input_path, settings, filters, method, bootstrap, seed, anchor, init_rating, workers, style_control,
                  style_features, reweight, ci_kind, sample, covariate_sql, covariate_columns, top_n, fmt,
                  output) -> None:
    """``arena fit --engine spark``: Spark reduces the battles where they are kept; the driver
    gets the pair counts (plain fit and bootstrap) or each Newton pass's sums (styled fit)."""
    from builder.pairwise.arena import TABLE_COLUMNS
    from builder.pairwise.leaderboard import render_leaderboard
    from builder.pairwise.spark import SparkScan, fit_styled_spark, spark_session, styled_table_spark

    if method != "bt":
        raise UserError("--engine spark fits Bradley-Terry from pair counts: online Elo (--method elo) needs the "
                        "battle sequence on one machine (--engine duckdb)")
    if sample is not None:
        raise UserError("--sample needs the battle sequence on one machine (--engine duckdb)")
    if filters.anomaly_fpr is not None:
        raise UserError("--anomalous-voters runs on the duckdb engine only")
    specs: list[Any] = []
    features: tuple[str, ...] = ()
    covariates: list[Any] = []
    if style_control:
        from builder.pairwise.style import parse_style_features, style_feature_specs

        features = () if style_features == "none" else parse_style_features(style_features)
        covariates = _covariates(covariate_sql, covariate_columns)
        if not features and not covariates:
            raise UserError("--style-features none needs at least one --covariate or --covariate-column")
        specs = [*style_feature_specs(features), *covariates]
    spark = spark_session(settings)
    scan = SparkScan(spark, input_path, filters, specs)
    _echo_scan(scan, filters.official)
    if not style_control:
        rows = _fit_battles(scan.pair_counts(), method, bootstrap, seed, anchor, 4.0, init_rating, workers,
                            reweight, ci_kind)
        out_rows = [{k: r[k] for k in TABLE_COLUMNS} for r in rows]
        if output:
            _write_rows(Path(output), out_rows, TABLE_COLUMNS)
            click.echo(f"{output}: {len(out_rows)} models", err=True)
        click.echo(render_leaderboard(_board_from_rows(rows, str(input_path)), top_n=top_n, fmt=fmt), nl=False)
        return
    if bootstrap:
        raise UserError("--engine spark gives the styled fit sandwich intervals: drop --bootstrap")
    res = fit_styled_spark(scan, features, [c.name for c in covariates], reweight=reweight, ci="sandwich",
                           anchor=_parse_anchor(anchor), init=init_rating)
    _echo_style_report(res.report)
    table = styled_table_spark(res, reweight=reweight, anchor=_parse_anchor(anchor))
    _print_styled(input_path, table, top_n, fmt, output)


def _echo_style_report(rep) -> None:
    dropped = ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in rep.rows.items() if k != "ok" and v) or "none"
    click.echo(f"style metadata: {rep.usable} battles usable; left out of the styled fit: {dropped}"
               + (f"; first malformed: {rep.first_malformed}" if rep.first_malformed else ""), err=True)


def _fit_styled(input_path, battles, styles, reweight, ci_kind, bootstrap, seed, anchor, init_rating, top_n, fmt,
                output) -> None:
    """``arena fit --style-control``: the styled rows, coefficients and method."""
    from builder.pairwise.arena_style import fit_styled_table

    rep = styles.report
    _echo_style_report(rep)
    if rep.usable == 0:
        raise UserError(f"{input_path}: no battle has usable conv_metadata for {', '.join(styles.features)}")
    table = fit_styled_table(battles, styles, reweight=reweight, ci=ci_kind, bootstrap=bootstrap, seed=seed,
                             anchor=_parse_anchor(anchor), init=init_rating, consume=True)
    _print_styled(input_path, table, top_n, fmt, output)


def _print_styled(input_path, table, top_n, fmt, output) -> None:
    """Print (and with --output write) a styled table: rows, coefficients and method."""
    from builder.pairwise.arena import TABLE_COLUMNS
    from builder.pairwise.arena_style import STYLE_COLUMNS
    from builder.pairwise.leaderboard import render_leaderboard

    out_rows = [{k: r[k] for k in TABLE_COLUMNS} for r in table.rows]
    style = [{k: c[k] for k in STYLE_COLUMNS} for c in table.style]
    doc = {"rows": out_rows, "style": style, "method": table.method}
    if output:
        path = Path(output)
        if path.suffix.lower() == ".json":
            write_atomic(path, lambda f: f.write(json.dumps(doc, indent=1, ensure_ascii=False) + "\n"))
        else:
            _write_rows(path, out_rows, TABLE_COLUMNS)
        click.echo(f"{output}: {len(out_rows)} models, {len(style)} style coefficients", err=True)
    board = _board_from_rows(table.rows, str(input_path))
    click.echo(render_leaderboard(board, top_n=top_n, fmt=fmt), nl=False)
    say = (lambda text: click.echo(text, err=True)) if fmt == "csv" else click.echo  # keep stdout pure CSV
    for c in style:
        lo = "" if c["lower"] is None else f" ({c['lower']:.4f} to {c['upper']:.4f})"
        say(f"style {c['feature']}: beta {c['beta']:.4f}{lo} per std {c['std']:.4f}")


@arena.command()
@click.option("--input", "input_path", type=click.Path(dir_okay=False), required=True,
              help="A ratings file from `fit --output` or `history --output`, or a battles file (fitted).")
@_board_options()
@_fit_options
@_filter_options
@_reader_options
def leaderboard(input_path, top_n, fmt, method, bootstrap, seed, anchor, init_rating, elo_k, workers, anony_only,
                dedup, language, min_date, max_date, min_turn, memory_limit, temp_dir, threads,
                all_votes=False, voter_cap=None, anomalous_voters=None, voter_column=None) -> None:
    """Print the leaderboard of a ratings file (a history file: its newest slice), or fit a
    battles file first. The table ends with the number of models, the rating range and the
    mean interval width."""
    from builder.pairwise.leaderboard import read_leaderboard, render_leaderboard

    board = read_leaderboard(input_path)
    if board is None:
        filters = _filters(anony_only, dedup, language, min_date, max_date, min_turn, all_votes, voter_cap,
                       anomalous_voters, voter_column)
        battles = _read_for_fit(input_path, filters, _reader_settings(memory_limit, temp_dir, threads), method, None,
                                seed)
        rows = _fit_battles(battles, method, bootstrap, seed, anchor, elo_k, init_rating, workers)
        board = _board_from_rows(rows, str(input_path))
    else:
        click.echo(f"{board.source}: {len(board.rows)} models", err=True)
    click.echo(render_leaderboard(board, top_n=top_n, fmt=fmt), nl=False)


@arena.command()
@click.option("--models", "models_opt", default=None, metavar="N|a,b,c",
              help="N models with random skills, or comma-separated names (default: a roster of eight models).")
@click.option("--n", "n_battles", type=click.IntRange(2), default=5000, show_default=True, help="Battles to simulate.")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the simulation and the bootstrap.")
@click.option("--tie-prob", type=float, default=0.1, show_default=True)
@click.option("--bootstrap", type=click.IntRange(0), default=100, show_default=True,
              help="Bootstrap rounds for the Bradley-Terry 95% intervals.")
@click.option("--k", "elo_k", type=float, default=4.0, show_default=True, help="Online Elo step.")
@_init_option
@click.option("--anchor", default=None, help="MODEL=RATING: shift the Bradley-Terry ratings so this model has it.")
@_board_options()
@click.option("--zipf", "zipf_exponent", type=click.FloatRange(0), default=0.0, show_default=True,
              help="Popularity exponent: 0 draws every pair uniformly; 1 gives Zipf popularity as on a real arena.")
@click.option("--trace", "trace_n", type=click.IntRange(0), default=5, show_default=True,
              help="Battles walked one by one with each online Elo update (0: none).")
@click.option("--output", type=click.Path(dir_okay=False), default=None, help="Also write the battles (.jsonl).")
@click.option("--anony-share", type=click.FloatRange(0, 1), default=1.0, show_default=True,
              help="Share of the simulated votes cast anonymously.")
@click.option("--all-votes", is_flag=True, help="Fit every vote: turn off the official filter (anonymous votes only).")
def pipeline(models_opt, n_battles, seed, tie_prob, bootstrap, elo_k, init_rating, anchor, top_n, fmt, zipf_exponent,
             trace_n, output, anony_share=1.0, all_votes=False) -> None:
    """Offline demo: simulate battles, walk the first few with each online Elo update, fit
    Bradley-Terry (with bootstrap intervals) and online Elo, print the leaderboard beside the
    true skills and every pair's predicted win probability. No files, keys or network."""
    from builder.pairwise.demo import (
        compute_elo_trace,
        compute_win_probabilities,
        describe_skills,
        parse_models_option,
        recovery_line,
        render_elo_trace,
        run_arena_pipeline,
        skills_for,
    )
    from builder.pairwise.leaderboard import render_leaderboard

    if output and Path(output).suffix.lower() not in (".jsonl", ".ndjson"):
        raise UserError(f"{output}: output must end in .jsonl")
    skills = skills_for(parse_models_option(models_opt), centre=init_rating, seed=seed)
    result = run_arena_pipeline(skills, n_battles=n_battles, seed=seed, tie_prob=tie_prob, bootstrap=bootstrap,
                                init=init_rating, elo_k=elo_k, anchor=_parse_anchor(anchor), anony_share=anony_share,
                                official=not all_votes, zipf_exponent=zipf_exponent)
    prose = fmt == "csv"  # keep stdout pure CSV: the prose goes to stderr
    say = (lambda text: click.echo(text, err=True)) if prose else click.echo
    pairs = "pairs drawn uniformly" if zipf_exponent == 0 else f"Zipf popularity (exponent {zipf_exponent:g})"
    say(f"Arena pipeline (offline): {n_battles} simulated battles among {len(skills)} models, "
        f"{pairs}, ties {tie_prob:.0%}, seed {seed}")
    if all_votes:
        say("filters: none (--all-votes)")
    else:
        say(f"filters: official (anonymous votes only): {result.removed.get('anony', 0)} non-anonymous battles "
            f"removed, {n_battles - result.removed.get('anony', 0)} fitted")
    say("true skills (Arena scale) the battles were drawn from:")
    for line in describe_skills(skills):
        say(line)
    steps = compute_elo_trace(result.simulated, trace_n, k=elo_k, init=init_rating)
    if steps:
        say(f"\nthe first {len(steps)} battles, online Elo k={elo_k:g} step by step:")
        for line in render_elo_trace(steps):
            say(line)
    intervals = f"95% intervals from {bootstrap} bootstrap rounds" if bootstrap else "no intervals (--bootstrap 0)"
    say(f"\nBradley-Terry maximum likelihood ({intervals}), online Elo k={elo_k:g} from {init_rating:g}; "
        "'truth' is the latent skill")
    click.echo(render_leaderboard(result.board, top_n=top_n, fmt=fmt), nl=False)
    say(recovery_line(result))
    shown = {r.model: r.rating for r in result.board.rows[:top_n] if r.component == 0}
    if len(shown) > 1:
        say("\npredicted win probabilities from the Bradley-Terry ratings (A vs B: A wins - B wins):")
        for a, b, p in compute_win_probabilities(shown):
            say(f"  {a} vs {b}: {p:.1%} - {1 - p:.1%}")
    if output:
        def w(f):
            for row in result.simulated.rows():
                f.write(json.dumps(row, separators=(",", ":"), ensure_ascii=False))
                f.write("\n")

        write_atomic(Path(output), w)
        say(f"{output}: {n_battles} battles")


@arena.command()
@click.option("--input", "input_path", type=click.Path(dir_okay=False), required=True, help="Battles file.")
@click.option("--period", type=click.Choice(["day", "week", "month"]), default="week", show_default=True)
@click.option("--bootstrap", type=click.IntRange(0), default=0, show_default=True, help="Bootstrap rounds per slice.")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the bootstrap (and of --sample).")
@_init_option
@click.option("--workers", type=click.IntRange(1), default=None, help="Processes (default: all cores for big jobs).")
@_sample_option
@_filter_options
@_reader_options
@click.option("--top-n", type=click.IntRange(1), default=20, show_default=True,
              help="Models in the printed rating-change table.")
@click.option("--output", type=click.Path(dir_okay=False), default=None,
              help="Write F.json (slices) or F.csv (long rows).")
def history(input_path, period, bootstrap, seed, init_rating, workers, sample, anony_only, dedup, language, min_date,
            max_date, min_turn, memory_limit, temp_dir, threads, top_n, output, all_votes=False, voter_cap=None,
            anomalous_voters=None, voter_column=None) -> None:
    """Cumulative Bradley-Terry (and online Elo) ratings at the end of every period; prints
    each model's initial, final, highest and lowest rating, its volatility (standard deviation
    of its ratings over the slices) and its total matches. --output rows carry each model's
    cumulative matches, wins (ties excluded) and ties per slice."""
    import numpy as np

    from builder.pairwise.changes import (
        changes_from_history_section,
        render_changes_table,
    )
    from builder.pairwise.history import compute_history
    from builder.pairwise.scan import scan_battles

    out = Path(output) if output else None
    if out is not None and out.suffix.lower() not in (".json", ".csv"):
        raise UserError(f"{out}: output must end in .json or .csv")
    filters = _filters(anony_only, dedup, language, min_date, max_date, min_turn, all_votes, voter_cap,
                       anomalous_voters, voter_column)
    with scan_battles(input_path, filters, _reader_settings(memory_limit, temp_dir, threads)) as scan:
        _echo_scan(scan, filters.official)
        # Without a sample the slices come from one grouped query over time buckets; the
        # battle sequence is still read for online Elo.
        periods = scan.period_counts(period) if sample is None else None
        battles = scan.battles()
    battles = _apply_sample(battles, sample, seed)
    hist = compute_history(battles, period, bootstrap=bootstrap, seed=seed, workers=workers, init=init_rating,
                           counts=periods)
    long_rows: list[dict[str, Any]] = []
    slices = []
    for s in hist.slices:
        entries = []
        for k in np.flatnonzero(np.isfinite(s.ratings)):
            e = {"date": s.date.isoformat(), "model": hist.models[k], "rating": round(float(s.ratings[k]), 2),
                 "rank": int(s.ranks[k]), "elo": round(float(s.elo[k]), 2), "matches": int(s.matches[k]),
                 "wins": int(s.wins[k]), "ties": int(s.ties[k])}
            if s.lower is not None and s.upper is not None:
                # rounded as the ratings are (and as `arena fit --output` writes its bounds)
                e["lower"] = round(float(s.lower[k]), 2) if np.isfinite(s.lower[k]) else None
                e["upper"] = round(float(s.upper[k]), 2) if np.isfinite(s.upper[k]) else None
            entries.append(e)
        entries.sort(key=lambda e: (e["rank"], e["model"]))
        long_rows += entries
        slices.append({"date": s.date.isoformat(), "n_battles": s.n_battles,
                       "models": [{k: v for k, v in e.items() if k != "date"} for e in entries]})
    if out is not None:
        if out.suffix.lower() == ".json":
            write_atomic(out, lambda f: f.write(json.dumps(slices, indent=1, ensure_ascii=False) + "\n"))
        else:
            _write_rows(out, long_rows, ["date", "model", "rating", "rank", "elo", "lower", "upper", "matches", "wins",
                                         "ties"])
        click.echo(f"{out}: {len(hist.slices)} {period} slices", err=True)
    changes = changes_from_history_section(slices)
    first, last = (slices[0]["date"], slices[-1]["date"]) if slices else ("-", "-")
    click.echo(f"Bradley-Terry rating changes over {len(slices)} {period} slices, {first} to {last} "
               "(volatility: standard deviation of the model's ratings over the slices; matches: its battles up to "
               "the last slice)")
    click.echo(render_changes_table(changes, top_n), nl=False)


@arena.command()
@click.option("--judge-backend", "--api", "backend_choice",
              type=click.Choice(["auto", "anthropic", "openai", "openrouter"]), default="auto", show_default=True,
              help="auto: Anthropic when ANTHROPIC_API_KEY is set, else OpenRouter (OPENROUTER_API_KEY). "
                   "--api is an alias.")
@click.option("--candidates", default=None,
              help="Comma-separated candidate models, at least 2 [default: claude-opus-4-8,claude-haiku-4-5; "
                   "openai: gpt-5.6-luna,gpt-5-mini].")
@click.option("--judge", "judge_model", default=None,
              help="Judge model [default: claude-opus-4-8; openai: gpt-5.6-luna].")
@click.option("--prompts", "prompts_path", type=click.Path(dir_okay=False), default=None,
              help="Prompts: a text file (one per line) or a JSON array of strings [default: the bundled set].")
@click.option("--base-url", default=None,
              help="API base URL [default: $ANTHROPIC_BASE_URL / $OPENAI_BASE_URL / $OPENROUTER_BASE_URL, "
                   "else the vendor's].")
@click.option("--api-key-env", default=None,
              help="Environment variable holding the key [default: ANTHROPIC_API_KEY / OPENAI_API_KEY / "
                   "OPENROUTER_API_KEY].")
@click.option("--openrouter-id", "openrouter_ids", multiple=True, metavar="NAME=ID",
              help="OpenRouter id for a model name, beside the built-in rule (repeatable).")
@click.option("--max-tokens", type=click.IntRange(1), default=1024, show_default=True, help="Answer length cap.")
@click.option("--timeout", type=float, default=120.0, show_default=True, help="Seconds per request.")
@click.option("--retries", type=click.IntRange(1, 10), default=3, show_default=True)
@click.option("--output", type=click.Path(dir_okay=False), default="judge-battles.jsonl", show_default=True,
              help="Battles file to write (.jsonl).")
def judge(backend_choice, candidates, judge_model, prompts_path, base_url, api_key_env, openrouter_ids, max_tokens,
          timeout, retries, output) -> None:
    """LLM-judged battles: each pair judged twice with the answers swapped; a winner only
    when both verdicts agree, else a tie. Runs with an API key alone."""
    from builder.pairwise.backends import (
        OPENROUTER_HEADERS,
        endpoint_for,
        openrouter_id,
        parse_overrides,
        read_default_prompts,
        resolve_backend,
    )
    from builder.pairwise.judge import ChatClient, read_prompts, run_judge_battles

    overrides = parse_overrides(openrouter_ids)
    backend = resolve_backend(backend_choice)
    endpoint = endpoint_for(backend, base_url, api_key_env)
    models = ([m.strip() for m in candidates.split(",") if m.strip()] if candidates is not None
              else list(backend.candidates))
    judge_model = judge_model or backend.judge
    prompts = read_prompts(prompts_path) if prompts_path else read_default_prompts()
    model_id = (lambda m: openrouter_id(m, overrides)) if backend.name == "openrouter" else None
    headers = OPENROUTER_HEADERS if backend.name == "openrouter" else None
    click.echo(f"judge: {backend.title} at {endpoint.base_url}, judge {judge_model}, {len(models)} candidates, "
               f"{len(prompts)} prompts", err=True)
    with ChatClient(endpoint, timeout=timeout, retries=retries, model_id=model_id, headers=headers) as client:
        rows = run_judge_battles(models, prompts, judge_model, client, max_tokens=max_tokens)

    def w(f):
        for row in rows:
            f.write(json.dumps(row, ensure_ascii=False, separators=(",", ":")))
            f.write("\n")

    write_atomic(Path(output), w)
    tally = {k: sum(r["winner"] == k for r in rows) for k in ("model_a", "model_b", "tie")}
    click.echo(f"{output}: {len(rows)} battles (model_a {tally['model_a']}, model_b {tally['model_b']}, "
               f"tie {tally['tie']})")


__all__ = ["arena"]
