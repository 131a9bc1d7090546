"""The Capability Index: a second ranking of models on a 0-100 scale.

Formulas (all settings in ``site.yml`` ``index``; every stage rounds to one decimal before the
next, so each published number can be rebuilt exactly from the published numbers before it):

    source_score(m, b) = 100 * (L + 0.5 * E) / N      mid-rank percentile of m's selected raw
                                                      score among the N selected rows of board b
                                                      (L rows lower, E rows equal, m included)
    w(m, b)            = share_b * confidence_b / 100
    family(m, f)       = sum_b w * source_score / sum_b w     over m's rows in f with w > 0
    measured(m)        = clamp(G + sum_f weight_f / 100 * clamp(F_f - G, -bound, +bound), 0, 100)
                         G = family(m, general); f over the specialist families m has
    fused(m)           = clamp(sum_t mean_t / sigma_t^2 / sum_t 1 / sigma_t^2, 0, 100)
                         over the fusion terms t of m (no general row):
                           measured-specialist  sum_f weight_f F_f / sum_f weight_f  (m's own rows)
                           lineage              the published score of the previous measured
                                                version in m's lineage
                           maker-prior          the mean published score of the maker's
                                                measured models
    basis              measured (a general row) | estimated (specialist rows only) |
                       inherited (no rows of its own; needs a lineage term)
    confidence         measured: the share-weighted mean confidence of its rows times
                       sqrt(families present / 4); fused: 100 - k * sigma_fused, with
                       sigma_fused = 1 / sqrt(sum_t 1 / sigma_t^2); both clamped to 0-100

Boards: ``all_versions`` ranks every scored model; ``current`` only the newest version of each
lineage. Order: published score descending, basis (measured, inherited, estimated),
confidence descending, identity key by code point; numbered 1, 2, 3, ... without shared ranks.
"""

from __future__ import annotations

import math
import re
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, TypeVar

from builder.config import IndexConfig
from builder.snapshot.models import CapabilityIndex, Evals, ModelFacts, Observation

M = TypeVar("M", bound=Mapping[str, Any])

FAMILIES = ("general", "coding", "agent", "reasoning")
SPECIALISTS = ("coding", "agent", "reasoning")
BASIS_ORDER = {"measured": 0, "inherited": 1, "estimated": 2}


def r1(x: float) -> float:
    """Round to one decimal, half away from zero on the decimal string (stable across platforms)."""
    return math.floor(abs(x) * 10 + 0.5 + 1e-9) / 10 * (1 if x >= 0 else -1)


def clamp(x: float, lo: float, hi: float) -> float:
    return lo if x < lo else hi if x > hi else x


def compute_source_scores(raws: Mapping[str, float]) -> dict[str, float]:
    """Mid-rank percentile of each model's raw score on one board, shape {identity: 0-100}."""
    values = sorted(raws.values())
    n = len(values)
    out = {}
    for ident, x in raws.items():
        lower = _count_lt(values, x)
        equal = _count_le(values, x) - lower
        out[ident] = 100.0 * (lower + 0.5 * equal) / n
    return out


def _count_lt(sorted_vals: list[float], x: float) -> int:
    import bisect

    return bisect.bisect_left(sorted_vals, x)


def _count_le(sorted_vals: list[float], x: float) -> int:
    import bisect

    return bisect.bisect_right(sorted_vals, x)


def compute_family_score(rows: Iterable[Mapping[str, float]]) -> float | None:
    """sum(w * source_score) / sum(w) with w = share * confidence / 100, over rows with w > 0."""
    num = den = 0.0
    for row in rows:
        w = row["share"] * row["confidence"] / 100.0
        if w > 0:
            num += w * row["source_score"]
            den += w
    return num / den if den > 0 else None


def compute_measured(families: Mapping[str, float], weights: Mapping[str, float], bound: float) -> float:
    """general + sum_f weight_f / 100 * clamp(f - general, -bound, bound), clamped to 0-100."""
    g = families["general"]
    total = g
    for f in SPECIALISTS:
        if f in families:
            total += weights.get(f, 0.0) / 100.0 * clamp(families[f] - g, -bound, bound)
    return clamp(total, 0.0, 100.0)


def compute_specialist_mean(families: Mapping[str, float], weights: Mapping[str, float]) -> float | None:
    """Family-weighted mean of the specialist family scores present."""
    num = den = 0.0
    for f in SPECIALISTS:
        if f in families and weights.get(f, 0.0) > 0:
            num += weights[f] * families[f]
            den += weights[f]
    return num / den if den > 0 else None


def compute_fused(terms: Iterable[Mapping[str, Any]]) -> tuple[float, float]:
    """Precision-weighted mean of the terms, clamped to 0-100, and the fused sigma."""
    num = den = 0.0
    for t in terms:
        p = 1.0 / (t["sigma"] ** 2)
        num += p * t["mean"]
        den += p
    return clamp(num / den, 0.0, 100.0), 1.0 / math.sqrt(den)


_VERSION_TOKEN = re.compile(r"^v?\d+(\.\d+)*$")
_DATE_TOKEN = re.compile(r"^\d{4}-?\d{2}-?\d{2}$|^\d{8}$|^\d{4}$")
_SIZE_TOKEN = re.compile(r"^(a)?\d+(\.\d+)?[bmk]$")


def lineage_key(identity: str, overrides: Mapping[str, str] | None = None) -> str:
    """The identity with version numbers and dates removed: ``claude-opus-5.5`` -> ``claude-opus``.

    Parameter sizes (``70b``, ``a22b``) stay: a 70B and an 8B model are different lineages.
    """
    if overrides and identity in overrides:
        return overrides[identity]
    tokens = []
    for tok in identity.split("-"):
        if _SIZE_TOKEN.match(tok):
            tokens.append(tok)
        elif _VERSION_TOKEN.match(tok) or _DATE_TOKEN.match(tok):
            continue
        else:
            stripped = re.sub(r"\d+(\.\d+)*$", "", tok)  # qwen4 -> qwen, k3 -> k
            if stripped:
                tokens.append(stripped)
    return "-".join(tokens) or identity


def version_tuple(identity: str) -> tuple[float, ...]:
    """Numbers in the identity, in order, for ordering versions within a lineage."""
    return tuple(float(x) for x in re.findall(r"\d+(?:\.\d+)?", identity))


def _board_rows(
    observations: Sequence[Observation], evals: Evals | None, day: str, cfg: IndexConfig
) -> dict[str, dict[str, dict[str, Any]]]:
    """feed -> identity -> {raw, url, date} from the selected, usable observations and eval suites."""
    wanted = {b.feed for b in cfg.boards}
    rows: dict[str, dict[str, dict[str, Any]]] = defaultdict(dict)
    for obs in observations:
        if obs.feed not in wanted or not obs.selected or obs.excluded or obs.raw is None:
            continue
        rows[obs.feed][obs.identity] = {"raw": obs.raw, "url": obs.url, "date": obs.date}
    for suite in evals.suites if evals is not None else ():
        feed = f"evals/{suite.id}"
        if feed not in wanted:
            continue
        for row in suite.rows:
            rows[feed][row.model_id] = {"raw": row.mean_score, "url": None, "date": day}
    return rows


def compute_index_section(
    observations: Sequence[Observation],
    facts: Mapping[str, ModelFacts],
    evals: Evals | None,
    day: str,
    cfg: IndexConfig,
) -> CapabilityIndex:
    """The snapshot's ``index`` section, from its observations, model facts and eval suites.

    ``day`` is the snapshot's date (the date of an eval-suite row). Returns {"method_id",
    "settings", "models": [...], "boards": {"current": [...], "all_versions": [...]}} (typed)
    where each model is {identity, name, maker, lineage, basis, score, confidence, families,
    observations, fusion, rank}.
    """
    boards_cfg = {b.feed: b for b in cfg.boards}
    weights = cfg.family_weights
    bound = cfg.delta_bound
    per_model_obs: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for feed, rows in sorted(_board_rows(observations, evals, day, cfg).items()):
        b = boards_cfg[feed]
        scores = compute_source_scores({k: v["raw"] for k, v in rows.items()})
        for ident, src in rows.items():
            per_model_obs[ident].append({
                "family": b.family, "board": feed, "source_score": r1(scores[ident]),
                "share": round(b.share, 4),
                "confidence": r1(b.confidence), "url": src["url"], "date": src["date"],
                "raw": src["raw"],
            })

    models: dict[str, dict[str, Any]] = {}
    for ident, obs in per_model_obs.items():
        fams: dict[str, float] = {}
        for fam in FAMILIES:
            s = compute_family_score([o for o in obs if o["family"] == fam])
            if s is not None:
                fams[fam] = r1(s)
        known = facts.get(ident)
        models[ident] = {
            "identity": ident, "name": (known.name if known else None) or ident,
            "maker": known.maker if known else None,
            "lineage": lineage_key(ident, cfg.lineages),
            "release_date": known.release_date if known else None,
            "families": fams, "observations": sorted(obs, key=lambda o: (o["family"], o["board"])),
        }
    # Models known only from metadata (no rows of their own) may inherit through their lineage.
    for ident, info in facts.items():
        if ident not in models:
            models[ident] = {
                "identity": ident, "name": info.name or ident, "maker": info.maker,
                "lineage": lineage_key(ident, cfg.lineages),
                "release_date": info.release_date, "families": {}, "observations": [],
            }

    # Pass 1: measured models.
    for m in models.values():
        m["fusion"] = None
        if "general" in m["families"]:
            m["basis"] = "measured"
            m["score"] = r1(compute_measured(m["families"], weights, bound))
            m["confidence"] = r1(_measured_confidence(m))
        else:
            m["basis"] = None
    measured = [m for m in models.values() if m["basis"] == "measured"]

    # Pass 2: fused estimates from the measured field.
    by_lineage: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for m in measured:
        by_lineage[m["lineage"]].append(m)
    by_maker: dict[str, list[float]] = defaultdict(list)
    for m in measured:
        if m["maker"]:
            by_maker[m["maker"]].append(m["score"])
    for m in models.values():
        if m["basis"] == "measured":
            continue
        terms: list[dict[str, Any]] = []
        spec = compute_specialist_mean(m["families"], weights)
        if spec is not None:
            terms.append({"channel": "measured-specialist", "mean": r1(spec),
                          "sigma": cfg.sigmas["measured-specialist"], "from_identity": None})
        prev = _previous_version(m, by_lineage.get(m["lineage"], []))
        if prev is not None:
            terms.append({"channel": "lineage", "mean": prev["score"], "sigma": cfg.sigmas["lineage"],
                          "from_identity": prev["identity"]})
        peers = [s for s in by_maker.get(m["maker"] or "", [])]
        if peers and terms:
            terms.append({"channel": "maker-prior", "mean": r1(sum(peers) / len(peers)),
                          "sigma": cfg.sigmas["maker-prior"], "from_identity": None})
        if spec is not None:
            m["basis"] = "estimated"
        elif prev is not None:
            m["basis"] = "inherited"
        else:
            continue  # no rows and no lineage: not ranked
        score, sigma = compute_fused(terms)
        m["score"] = r1(score)
        m["confidence"] = r1(clamp(100.0 - cfg.confidence_per_sigma * sigma, 0.0, 100.0))
        m["fusion"] = {"terms": terms, "sigma": round(sigma, 4)}

    scored = [m for m in models.values() if m.get("basis")]
    all_versions = order_index_board(scored)
    current = order_index_board(select_current(scored))
    for m in scored:
        m["rank"] = {"current": None, "all_versions": None}
    for i, m in enumerate(all_versions, 1):
        m["rank"]["all_versions"] = i
    for i, m in enumerate(current, 1):
        m["rank"]["current"] = i
    return CapabilityIndex.model_validate({
        "method_id": cfg.method_id(),
        "settings": cfg.model_dump(exclude={"enabled"}),
        "models": sorted(scored, key=lambda m: m["identity"]),
        "boards": {
            "all_versions": [m["identity"] for m in all_versions],
            "current": [m["identity"] for m in current],
        },
    }, strict=False)


def _measured_confidence(m: Mapping[str, Any]) -> float:
    obs = m["observations"]
    shares = sum(o["share"] for o in obs)
    mean_conf = sum(o["share"] * o["confidence"] for o in obs) / shares if shares else 0.0
    return clamp(mean_conf * math.sqrt(len(m["families"]) / len(FAMILIES)), 0.0, 100.0)


def _release_key(m: Mapping[str, Any]) -> tuple[str, tuple[float, ...]]:
    return (m.get("release_date") or "", version_tuple(m["identity"]))


def _previous_version(m: Mapping[str, Any], lineage: Sequence[Mapping[str, Any]]) -> Mapping[str, Any] | None:
    """The newest measured model of the same lineage released before ``m``."""
    mine = _release_key(m)
    older = [o for o in lineage if o["identity"] != m["identity"] and _release_key(o) < mine]
    return max(older, key=_release_key) if older else None


def select_current(models: Iterable[M]) -> list[M]:
    """The newest version of each lineage (release date, else version order)."""
    newest: dict[str, M] = {}
    for m in models:
        cur = newest.get(m["lineage"])
        if cur is None or (_release_key(m), m["identity"]) > (_release_key(cur), cur["identity"]):
            newest[m["lineage"]] = m
    return list(newest.values())


def order_key(m: Mapping[str, Any]) -> tuple[float, int, float, str]:
    """Published score desc, basis, confidence desc, identity by code point."""
    return (-m["score"], BASIS_ORDER[m["basis"]], -m["confidence"], m["identity"])


def order_index_board(models: Iterable[M]) -> list[M]:
    return sorted(models, key=order_key)
