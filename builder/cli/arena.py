"""``modelboards arena simulate|fit|history|judge``: the pairwise tools on the command line.

Registered on the main group with ``main.add_command(arena)``. Every user error (bad file,
missing column, missing API key, no finite rating) ends in one line and exit code 2.

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


@click.group(cls=Group, context_settings={"help_option_names": ["-h", "--help"]})
def arena() -> None:
    """Arena: Bradley-Terry ratings, intervals and history from pairwise battles."""


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


def _filters(anony_only: bool, dedup: bool, language: str | None, min_date, max_date, min_turn: int | None):
    from builder.pairwise.battles import BattleFilters

    return BattleFilters(
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
    f = click.option("--dedup", is_flag=True, help="Keep rows whose dedup_tag says sampled.")(f)
    f = click.option("--anony-only", is_flag=True, help="Keep anonymous (blind) votes only.")(f)
    return f


def _report_line(battles) -> str:
    rep = battles.report
    bad = ", ".join(f"{k} {v}" for k, v in rep.bad_rows.items() if v) or "none"
    removed = ", ".join(f"{k} {v}" for k, v in rep.removed.items()) or "no filters"
    return (f"{rep.source}: {rep.rows_read} rows, {rep.rows_kept} battles, {len(battles.models)} models; "
            f"bad rows: {bad}; removed: {removed}")


@arena.command()
@click.option("--models-from", type=click.Path(dir_okay=False), default=None,
              help="LMArena leaderboard JSON whose ratings are the latent skills.")
@click.option("--category", default=None, help="Leaderboard category (default: full, else text).")
@click.option("--models", "n_models", type=click.IntRange(2), default=None,
              help="Instead: this many models with random skills ~ N(1000, 120).")
@click.option("--n", "n_battles", type=click.IntRange(1), default=10_000, show_default=True, help="Battles to draw.")
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--tie-prob", type=float, default=0.1, show_default=True)
@click.option("--zipf", "zipf_exponent", type=float, default=1.0, show_default=True, help="Popularity exponent.")
@click.option("--start", type=_DATE, default="2026-01-01", show_default=True, help="First UTC day.")
@click.option("--end", type=_DATE, default="2026-03-31", show_default=True, help="Last UTC day.")
@click.option("--debut-spread", type=float, default=0.0, show_default=True,
              help="Models debut over this leading fraction of the range (0: all at the start).")
@click.option("--anony-share", type=float, default=1.0, show_default=True, help="Share of anonymous votes.")
@click.option("--output", type=click.Path(dir_okay=False), required=True, help="Battles file (.jsonl or .json).")
@click.option("--truth-output", type=click.Path(dir_okay=False), default=None, help="Also write {model: skill} JSON.")
@click.option("--style-effect", multiple=True, metavar="FEATURE=BETA",
              help="Write conv_metadata with this true style effect (log-odds per unit of the raw feature); "
                   "repeatable.")
@click.option("--verbose-model", multiple=True, metavar="MODEL=V",
              help="With --style-effect: this model's verbosity (log tokens; others ~ N(0, 0.2^2)); repeatable.")
def simulate(models_from, category, n_models, n_battles, seed, tie_prob, zipf_exponent, start, end, debut_spread,
             anony_share, output, truth_output, style_effect, verbose_model) -> None:
    """Simulate battles from known latent skills (clean_battle schema, with conv_metadata
    when --style-effect is given)."""
    from builder.pairwise.simulate import (
        StyleSpec,
        random_skills,
        simulate_battles,
        skills_from_leaderboard,
    )

    if (models_from is None) == (n_models is None):
        raise UserError("simulate: give exactly one of --models-from FILE or --models N")
    if verbose_model and not style_effect:
        raise UserError("simulate: --verbose-model needs --style-effect")
    skills = skills_from_leaderboard(models_from, category) if models_from else random_skills(n_models, seed)
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
    click.echo(f"{out}: {n_battles} battles among {len(sim.models)} models")


@arena.command()
@click.option("--input", "input_path", type=click.Path(dir_okay=False), required=True,
              help="Battles file: .json, .jsonl, .csv or .parquet.")
@click.option("--method", type=click.Choice(["bt", "elo"]), default="bt", show_default=True,
              help="bt: Bradley-Terry MLE; elo: online Elo (k=4).")
@click.option("--bootstrap", type=click.IntRange(0), default=0, show_default=True,
              help="Bootstrap rounds for 95% intervals.")
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--anchor", default=None, help="MODEL=RATING: shift so this model has this rating (bt).")
@click.option("--k", "elo_k", type=float, default=4.0, show_default=True, help="Online Elo step (elo).")
@click.option("--workers", type=click.IntRange(1), default=None,
              help="Bootstrap processes (default: all cores for big jobs).")
@click.option("--style-control", is_flag=True,
              help="Style-controlled Bradley-Terry: covariates for answer length and markdown from conv_metadata.")
@click.option("--style-features", default=None,
              help="Comma-separated style features (default: tokens,headers,bold,lists).")
@click.option("--reweight", is_flag=True, help="LMArena's inverse-frequency weights 1 / max(battles of the pair, 50).")
@click.option("--ci", "ci_kind", type=click.Choice(["sandwich", "bootstrap"]), default=None,
              help="95% intervals: the sandwich estimator, or --bootstrap rounds "
                   "(default: bootstrap when --bootstrap is given, else sandwich with --style-control).")
@_filter_options
@click.option("--output", type=click.Path(dir_okay=False), default=None,
              help="Write rows to F.json or F.csv (default: print).")
def fit(input_path, method, bootstrap, seed, anchor, elo_k, workers, style_control, style_features, reweight, ci_kind,
        anony_only, dedup, language, min_date, max_date, min_turn, output) -> None:
    """Fit ratings: one row per model with rating, median, lower, upper, rank, rank_ub,
    battles, wins, ties, win_rate. With --style-control the JSON output is
    {"rows": [...], "style": [{feature, beta, lower, upper, mean, std}], "method": {...}}."""
    from builder.pairwise.arena import TABLE_COLUMNS, fit_rating_table
    from builder.pairwise.battles import read_battles

    if ci_kind == "sandwich" and bootstrap:
        raise UserError("--ci sandwich and --bootstrap N: choose one kind of interval")
    if ci_kind is None:
        ci_kind = "bootstrap" if bootstrap else ("sandwich" if style_control else "bootstrap")
    if style_features is not None and not style_control:
        raise UserError("--style-features needs --style-control")
    if style_control and method != "bt":
        raise UserError("--style-control fits Bradley-Terry: drop --method elo")
    battles = read_battles(input_path, _filters(anony_only, dedup, language, min_date, max_date, min_turn))
    click.echo(_report_line(battles), err=True)
    if style_control:
        _fit_styled(input_path, battles, style_features, reweight, ci_kind, bootstrap, seed, anchor, output)
        return
    rows, info = fit_rating_table(
        battles, method=method, bootstrap=bootstrap, seed=seed, anchor=_parse_anchor(anchor), elo_k=elo_k,
        workers=workers, reweight=reweight, ci=ci_kind,
    )
    if len(info.get("components", ())) > 1:
        sizes = ", ".join(str(len(c)) for c in info["components"])
        click.echo(f"note: the battle graph has {len(info['components'])} disconnected components ({sizes} models); "
                   "each is centred on 1000 and ranked on its own", err=True)
    if info.get("degenerate_rounds"):
        click.echo(f"note: {info['degenerate_rounds']} bootstrap rounds left some model without a finite rating",
                   err=True)
    out_rows = [{k: r[k] for k in TABLE_COLUMNS} for r in rows]
    if output:
        _write_rows(Path(output), out_rows, TABLE_COLUMNS)
        click.echo(f"{output}: {len(out_rows)} models", err=True)
        return
    _print_rows(out_rows)


def _print_rows(out_rows: list[dict[str, Any]]) -> None:
    width = max(len(r["model"]) for r in out_rows)
    click.echo(f"{'rank':>4} {'ub':>3}  {'model':<{width}}  {'rating':>8} {'lower':>8} {'upper':>8} {'battles':>8} "
               f"{'win_rate':>8}")
    for r in out_rows:
        lo = "-inf" if r["lower"] is None else f"{r['lower']:.1f}"
        hi = "inf" if r["upper"] is None else f"{r['upper']:.1f}"
        click.echo(f"{r['rank']:>4} {r['rank_ub']:>3}  {r['model']:<{width}}  {r['rating']:>8.1f} {lo:>8} {hi:>8} "
                   f"{r['battles']:>8} {r['win_rate']:>8.3f}")


def _fit_styled(input_path, battles, style_features, reweight, ci_kind, bootstrap, seed, anchor, output) -> None:
    """``arena fit --style-control``: the styled rows, coefficients and method."""
    from builder.pairwise.arena import TABLE_COLUMNS
    from builder.pairwise.arena_style import STYLE_COLUMNS, fit_styled_table
    from builder.pairwise.style import parse_style_features
    from builder.pairwise.style_read import read_battle_styles

    features = parse_style_features(style_features)
    styles = read_battle_styles(input_path, battles, features)
    rep = styles.report
    dropped = ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in rep.rows.items() if k != "ok" and v) or "none"
    click.echo(f"style metadata: {rep.usable} battles usable; left out of the styled fit: {dropped}"
               + (f"; first malformed: {rep.first_malformed}" if rep.first_malformed else ""), err=True)
    if rep.usable == 0:
        raise UserError(f"{input_path}: no battle has usable conv_metadata for {', '.join(features)}")
    table = fit_styled_table(battles, styles, reweight=reweight, ci=ci_kind, bootstrap=bootstrap, seed=seed,
                             anchor=_parse_anchor(anchor))
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
        return
    _print_rows(out_rows)
    for c in style:
        lo = "" if c["lower"] is None else f" ({c['lower']:.4f} to {c['upper']:.4f})"
        click.echo(f"style {c['feature']}: beta {c['beta']:.4f}{lo} per std {c['std']:.4f}")


@arena.command()
@click.option("--input", "input_path", type=click.Path(dir_okay=False), required=True, help="Battles file.")
@click.option("--period", type=click.Choice(["day", "week", "month"]), default="week", show_default=True)
@click.option("--bootstrap", type=click.IntRange(0), default=0, show_default=True, help="Bootstrap rounds per slice.")
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--workers", type=click.IntRange(1), default=None, help="Processes (default: all cores for big jobs).")
@_filter_options
@click.option("--output", type=click.Path(dir_okay=False), required=True, help="F.json (slices) or F.csv (long rows).")
def history(input_path, period, bootstrap, seed, workers, anony_only, dedup, language, min_date, max_date, min_turn,
            output) -> None:
    """Cumulative Bradley-Terry (and online Elo) ratings at the end of every period."""
    import numpy as np

    from builder.pairwise.battles import read_battles
    from builder.pairwise.history import compute_history

    battles = read_battles(input_path, _filters(anony_only, dedup, language, min_date, max_date, min_turn))
    click.echo(_report_line(battles), err=True)
    hist = compute_history(battles, period, bootstrap=bootstrap, seed=seed, workers=workers)
    long_rows: list[dict[str, Any]] = []
    slices = []
    for s in hist.slices:
        entries = []
        for k in np.flatnonzero(np.isfinite(s.ratings)):
            e = {"date": s.date.isoformat(), "model": hist.models[k], "rating": round(float(s.ratings[k]), 2),
                 "rank": int(s.ranks[k]), "elo": round(float(s.elo[k]), 2)}
            if s.lower is not None and s.upper is not None:
                e["lower"] = float(s.lower[k]) if np.isfinite(s.lower[k]) else None
                e["upper"] = float(s.upper[k]) if np.isfinite(s.upper[k]) else None
            entries.append(e)
        entries.sort(key=lambda e: (e["rank"], e["model"]))
        long_rows += entries
        slices.append({"date": s.date.isoformat(), "n_battles": s.n_battles,
                       "models": [{k: v for k, v in e.items() if k != "date"} for e in entries]})
    out = Path(output)
    if out.suffix.lower() == ".json":
        write_atomic(out, lambda f: f.write(json.dumps(slices, indent=1, ensure_ascii=False) + "\n"))
    else:
        _write_rows(out, long_rows, ["date", "model", "rating", "rank", "elo", "lower", "upper"])
    click.echo(f"{out}: {len(hist.slices)} {period} slices", err=True)


@arena.command()
@click.option("--candidates", required=True, help="Comma-separated candidate models (at least 2).")
@click.option("--judge", "judge_model", required=True, help="Judge model.")
@click.option("--prompts", "prompts_path", type=click.Path(dir_okay=False), required=True,
              help="Prompts: a text file (one per line) or a JSON array of strings.")
@click.option("--api", type=click.Choice(["openai", "anthropic"]), default="openai", show_default=True,
              help="Endpoint kind: OpenAI-compatible chat completions or Anthropic messages.")
@click.option("--base-url", default=None, help="API base URL (default: the provider's).")
@click.option("--api-key-env", default=None,
              help="Environment variable holding the key (default OPENAI_API_KEY / ANTHROPIC_API_KEY).")
@click.option("--max-tokens", type=click.IntRange(1), default=1024, show_default=True, help="Answer length cap.")
@click.option("--timeout", type=float, default=120.0, show_default=True, help="Seconds per request.")
@click.option("--retries", type=click.IntRange(1, 10), default=3, show_default=True)
@click.option("--output", type=click.Path(dir_okay=False), required=True, help="Battles file to write (.jsonl).")
def judge(candidates, judge_model, prompts_path, api, base_url, api_key_env, max_tokens, timeout, retries,
          output) -> None:
    """LLM-judged battles: each pair judged twice with the answers swapped; a winner only
    when both verdicts agree, else a tie."""
    from builder.pairwise.judge import (
        ChatClient,
        Endpoint,
        read_prompts,
        run_judge_battles,
    )

    models = [m.strip() for m in candidates.split(",") if m.strip()]
    prompts = read_prompts(prompts_path)
    endpoint = Endpoint.of(api, base_url, api_key_env)
    with ChatClient(endpoint, timeout=timeout, retries=retries) as client:
        rows = run_judge_battles(models, prompts, judge_model, client, max_tokens=max_tokens)

    write_atomic(Path(output), lambda f: f.writelines(compact_json(row) for row in rows))
    tally = {k: sum(r["winner"] == k for r in rows) for k in ("model_a", "model_b", "tie")}
    click.echo(f"{output}: {len(rows)} battles (model_a {tally['model_a']}, model_b {tally['model_b']}, tie "
               f"{tally['tie']})")


__all__ = ["arena"]
