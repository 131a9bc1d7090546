"""What the MCP tools compute, from the API documents alone (no SDK here; ``server`` wires it up).

Each method of ``Tools`` takes plain arguments, reads the store's current documents and
returns a typed result; a bad name or argument raises ``ToolFailure`` with a message for the
caller (the server turns it into a tool error). Names resolve by identity key, display name,
published spelling or alias, case-insensitively, then with case, spaces and punctuation
ignored; an unknown name lists the five nearest (``difflib`` ratio).

Arena win probability (Bradley-Terry, the fit's own scale and base)::

    P(a beats b) = 1 / (1 + base ** ((r_b - r_a) / scale))
"""

from __future__ import annotations

import difflib
import re
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import combinations

from builder.api.models import BoardDoc, BoardRow, IndexDoc, ModelDoc, ModelSummary, PriceRef, Provenance
from builder.mcp.data import SAFE_NAME, ApiData, ApiStore, DataError
from builder.mcp.results import (
    ArenaPair,
    BoardFilters,
    ComparedBoard,
    ComparedFamily,
    ComparedModel,
    CompareResult,
    ExplainResult,
    GetBoardResult,
    HistoryResult,
    How,
    ListBoardsResult,
    ListedBoard,
    PickFilters,
    PickResult,
    PickTarget,
    SearchMatch,
    SearchResult,
    SourcesResult,
)

NEAREST = 5
SEARCH_LIMIT = 20


class ToolFailure(Exception):
    """A bad argument or unknown name: the message tells the caller what to fix."""


def fold(text: str) -> str:
    """Case, spaces and punctuation ignored: ``GPT 6 (high)`` and ``gpt-6-high`` fold alike."""
    return re.sub(r"[^0-9a-z]+", "", text.casefold())


def nearest(text: str, names: Iterable[str], n: int = NEAREST) -> list[str]:
    """The ``n`` names closest to ``text`` (difflib ratio, case-insensitive), best first."""
    by_key: dict[str, str] = {}
    for name in names:
        by_key.setdefault(name.casefold(), name)
    return [by_key[k] for k in difflib.get_close_matches(text.casefold(), list(by_key), n=n, cutoff=0.0)]


@dataclass(frozen=True)
class _Key:
    text: str
    how: How
    identity: str


class Lookup:
    """Name resolution over one index (built once per snapshot)."""

    def __init__(self, index: IndexDoc) -> None:
        self.models = {m.identity: m for m in index.models}
        self.boards = {b.id: b for b in index.boards}
        self.machines = {m.id: m for m in index.machines}
        self.keys: list[_Key] = []
        for m in index.models:
            self.keys.append(_Key(m.identity, "identity", m.identity))
            self.keys.append(_Key(m.name, "name", m.identity))
            self.keys += [_Key(s, "spelling", m.identity) for s in m.spellings]
            self.keys += [_Key(a, "alias", m.identity) for a in m.aliases]
        self.exact: dict[str, _Key] = {}
        self.folded: dict[str, _Key] = {}
        self.key_folds = [(fold(k.text), k) for k in self.keys]
        for f, k in self.key_folds:
            self.exact.setdefault(k.text.casefold(), k)
            if f:
                self.folded.setdefault(f, k)
            tail = k.text.rsplit("/", 1)[-1]
            if tail != k.text and fold(tail):
                self.folded.setdefault(fold(tail), k)

    def model(self, text: str) -> ModelSummary:
        hit = self.exact.get(text.strip().casefold()) or self.folded.get(fold(text))
        if hit is None:
            names = nearest(text, [*self.models, *(m.name for m in self.models.values())])
            raise ToolFailure(f"unknown model {text!r}; the {len(names)} nearest names: {', '.join(names)}")
        return self.models[hit.identity]

    def board(self, text: str, *, machines: bool = False, extra: Iterable[str] = ()) -> str:
        ids = [*self.boards, *(self.machines if machines else ()), *extra]
        wanted = text.strip().casefold()
        for i in ids:
            if i.casefold() == wanted:
                return i
        what = "board or machine" if machines else "board"
        names = nearest(text, ids)
        raise ToolFailure(f"unknown {what} {text!r}; the {len(names)} nearest names: {', '.join(names)}")


class Tools:
    """The eight tools over an ``ApiStore``."""

    def __init__(self, store: ApiStore) -> None:
        self.store = store
        self._lookup: tuple[IndexDoc, Lookup] | None = None
        self._lock = threading.Lock()

    # ----------------------------------------------------------------- helpers

    def _data(self) -> tuple[ApiData, Lookup]:
        data = self.store.current()
        with self._lock:
            if self._lookup is None or self._lookup[0] is not data.index:
                self._lookup = (data.index, Lookup(data.index))
            return data, self._lookup[1]

    @staticmethod
    def _board_doc(data: ApiData, board_id: str) -> BoardDoc:
        if not SAFE_NAME.match(board_id):
            raise ToolFailure(f"board id {board_id!r} is not a valid id")
        try:
            return data.board(board_id)
        except DataError as exc:
            raise ToolFailure(f"cannot read board {board_id!r}: {exc}") from None

    @staticmethod
    def _model_doc(data: ApiData, summary: ModelSummary) -> ModelDoc:
        if not SAFE_NAME.match(summary.slug) or ".." in summary.slug:
            raise ToolFailure(f"model {summary.identity!r} has no readable document (slug {summary.slug!r})")
        try:
            return data.model(summary.slug)
        except DataError as exc:
            raise ToolFailure(f"cannot read model {summary.identity!r}: {exc}") from None

    @staticmethod
    def _open_weight(lookup: Lookup, identity: str) -> bool | None:
        m = lookup.models.get(identity)
        return m.open_weight if m is not None else None

    # ----------------------------------------------------------------- tools

    def list_boards(self) -> ListBoardsResult:
        data, _ = self._data()
        idx = data.index
        warnings = []
        if idx.snapshot.demo:
            warnings.append("demo data: built from the bundled demo payloads, not live sources")
        if idx.snapshot.stale:
            warnings.append("stale: the Arena source failed at the last refresh; its last good data is in use")
        boards = [ListedBoard(id=b.id, title=b.title, kind=b.kind, role=b.role, weights=b.weights, ranked=b.ranked,
                              new=b.new, top=b.top, as_of=b.as_of, warnings=[b.warning] if b.warning else [],
                              page=b.page, api=b.api, download=b.download) for b in idx.boards]
        return ListBoardsResult(snapshot=idx.snapshot, boards=boards, warnings=warnings,
                                machines=[m.id for m in idx.machines])

    def get_board(self, board: str, top: int = 20, open_weight_only: bool = False,
                  max_blended_price: float | None = None, hide_partial: bool = False) -> GetBoardResult:
        data, lookup = self._data()
        doc = self._board_doc(data, lookup.board(board))

        def keep(r: BoardRow) -> bool:
            if open_weight_only and self._open_weight(lookup, r.identity) is not True:
                return False
            if max_blended_price is not None and (r.token_price is None or r.token_price > max_blended_price):
                return False
            return not (hide_partial and r.partial)

        rows = [r for r in doc.rows if keep(r)]
        new = [r for r in doc.new if keep(r)][:top]
        shown = rows[:top]
        return GetBoardResult(
            snapshot=doc.snapshot, board=doc.board, rule=doc.rule,
            filters=BoardFilters(top=top, open_weight_only=open_weight_only, max_blended_price=max_blended_price,
                                 hide_partial=hide_partial),
            matched=len(rows), rows=shown, new=new,
            provenance={r.identity: doc.provenance[r.identity] for r in [*shown, *new] if r.identity in doc.provenance},
            page=doc.page, api=lookup.boards[doc.board.id].api, download=doc.download, licence=doc.licence,
            attribution=doc.attribution, sources=doc.sources)

    def explain_model(self, model: str, board: str = "orchestrator") -> ExplainResult:
        data, lookup = self._data()
        summary = lookup.model(model)
        board_id = lookup.board(board)
        doc = self._model_doc(data, summary)
        hit = next((p for p in doc.boards if p.board == board_id), None)
        if hit is None:
            on = ", ".join(p.board for p in doc.boards) or "no board"
            raise ToolFailure(f"model {summary.identity!r} is not on board {board_id!r} (on: {on})")
        return ExplainResult(snapshot=doc.snapshot, explain=hit.explain, page=doc.page, api=summary.api)

    def compare_models(self, models: Sequence[str]) -> CompareResult:
        if not 2 <= len(models) <= 5:
            raise ToolFailure(f"compare_models takes 2 to 5 models, got {len(models)}")
        data, lookup = self._data()
        summaries = [lookup.model(m) for m in models]
        seen: dict[str, str] = {}
        for asked, s in zip(models, summaries, strict=True):
            if s.identity in seen:
                raise ToolFailure(f"{seen[s.identity]!r} and {asked!r} are the same model ({s.identity})")
            seen[s.identity] = asked
        docs = [self._model_doc(data, s) for s in summaries]
        list_prices = {src.name for src in data.index.sources if "list_prices" in src.roles}
        build_source = next((src.name for src in data.index.sources if "build_checks" in src.roles), "")
        compared = []
        for s, d in zip(summaries, docs, strict=True):
            token = next((p for p in d.token_prices if p.used and p.source in list_prices
                          and p.blended is not None), None)
            build = next((p for p in d.build_prices if p.price is not None or p.passed is not None), None)
            compared.append(ComparedModel(
                identity=d.identity, name=d.name, page=d.page, api=s.api, facts=d.facts,
                token_price=None if token is None or token.blended is None else
                PriceRef(source=token.source, key=token.key, value=token.blended, url=token.url),
                build_price=None if build is None or build.price is None else
                PriceRef(source=build_source, key=build.model, value=build.price, url=build.url),
                build_passed=build.passed if build is not None else None,
                families={f: ComparedFamily(title=v.title, mean=v.mean, calibrated=[o.calibrated for o in v.values],
                                            feeds=[o.feed for o in v.values], urls=[o.url for o in v.values])
                          for f, v in d.families.items()},
                boards=[ComparedBoard(board=p.board, title=p.title, strip=p.strip, rank=p.row.rank,
                                      score=p.row.score, r=p.row.r, partial=p.row.partial) for p in d.boards]))
        return CompareResult(snapshot=data.index.snapshot, models=compared, arena=data.index.arena,
                             arena_pairs=self._arena_pairs(data.index, docs))

    @staticmethod
    def _arena_pairs(index: IndexDoc, docs: Sequence[ModelDoc]) -> list[ArenaPair]:
        if index.arena is None:
            return []
        scale, base = index.arena.scale, index.arena.base
        out = []
        for a, b in combinations(docs, 2):
            for ea in a.arena:
                h2h = {h.opponent: h for h in a.head_to_head if h.model == ea.model}
                for eb in b.arena:
                    p = None
                    notes = []
                    if ea.rating is None or eb.rating is None:
                        notes.append("no rating for one of them")
                    elif ea.component != eb.component:
                        notes.append("different components of the battle graph: ratings do not compare")
                    else:
                        p = 1.0 / (1.0 + base ** ((eb.rating - ea.rating) / scale))
                    h = h2h.get(eb.model)
                    if h is None:
                        notes.append("observed record not in the snapshot (the win-rate matrix holds the fit's top "
                                     "models only), or they never met")
                    else:
                        notes.append(f"observed over {h.battles} battles, ties counted half")
                    out.append(ArenaPair(a=a.identity, b=b.identity, a_model=ea.model, b_model=eb.model,
                                         a_rating=ea.rating, b_rating=eb.rating, p_a_beats_b=p,
                                         observed_battles=h.battles if h else None,
                                         observed_a_win_rate=h.win_rate if h else None, note="; ".join(notes)))
        return out

    def pick_model(self, board: str, max_blended_price: float | None = None,
                   open_weight: bool | None = None) -> PickResult:
        data, lookup = self._data()
        target_id = lookup.board(board, machines=True)
        rows: list[BoardRow]
        provenance: dict[str, Provenance] = {}
        if target_id in lookup.boards:
            doc = self._board_doc(data, target_id)
            summary = lookup.boards[target_id]
            target = PickTarget(kind="board", id=target_id, title=summary.title, page=summary.page)
            rule = doc.rule
            rows = list(doc.rows)
            provenance = dict(doc.provenance)
        else:
            machine = lookup.machines[target_id]
            target = PickTarget(kind="machine", id=target_id, title=machine.name, page=machine.page)
            rule = machine.rule
            rows = list(machine.rows)

        def fails(r: BoardRow) -> str | None:
            if max_blended_price is not None:
                if r.token_price is None:
                    return "no token price"
                if r.token_price > max_blended_price:
                    return f"token price {r.token_price:g} > {max_blended_price:g}"
            if open_weight is not None and self._open_weight(lookup, r.identity) is not open_weight:
                return "not open weight" if open_weight else "open weight"
            return None

        filters = []
        if max_blended_price is not None:
            filters.append(f"a blended token price of at most {max_blended_price:g} USD per million tokens")
        if open_weight is not None:
            filters.append("open weights" if open_weight else "closed weights")
        rule_text = rule + (" Filters: " + " and ".join(filters) + "." if filters else " No filters.")
        passing = [r for r in rows if fails(r) is None]
        pick = passing[0] if passing else None
        runner = passing[1] if len(passing) > 1 else None
        if pick is None:
            reason = (f"no ranked row of {target.title or target_id} passes the filters ({len(rows)} rows looked at)"
                      if rows else f"{target.title or target_id} has no ranked rows in this snapshot")
        else:
            skipped = rows.index(pick)
            why = [f"{pick.model} is the first row of {target.title or target_id} that passes the filters: "
                   f"rank {pick.rank}, score {pick.score} (R {pick.r:.2f})"]
            if skipped:
                why.append(f"{skipped} higher row(s) failed a filter (first: {rows[0].model}, {fails(rows[0])})")
            if pick.partial:
                why.append("note: partial (" + "; ".join(pick.partial_reasons or []) + ")")
            if runner is not None:
                why.append(f"runner-up {runner.model} (rank {runner.rank}, score {runner.score})")
            reason = "; ".join(why)
        if target.kind == "machine":
            provenance = {}
            for r in (x for x in (pick, runner) if x is not None):
                provenance[r.identity] = self._machine_provenance(data, lookup, r)
        else:
            provenance = {r.identity: provenance[r.identity] for r in (pick, runner) if r is not None
                          and r.identity in provenance}
        return PickResult(snapshot=data.index.snapshot, target=target, rule=rule_text,
                          filters=PickFilters(max_blended_price=max_blended_price, open_weight=open_weight),
                          pick=pick, runner_up=runner, reason=reason, considered=len(rows), passed=len(passing),
                          provenance=provenance)

    def _machine_provenance(self, data: ApiData, lookup: Lookup, row: BoardRow) -> Provenance:
        """A machine row's provenance (as on a board document), from the model's document."""
        summary = lookup.models.get(row.identity)
        if summary is None:
            return {}
        doc = self._model_doc(data, summary)
        list_prices = {src.name for src in data.index.sources if "list_prices" in src.roles}
        out = {f: list(dict.fromkeys(v.url for v in doc.families[f].values if v.url))
               for f in (row.families or {}) if f in doc.families}
        if row.token_price is not None:
            token = next((p for p in doc.token_prices if p.used and p.source in list_prices
                          and p.blended == row.token_price), None)
            out["token_price"] = [token.url] if token is not None and token.url else []
        if row.build_price is not None:
            build = next((p for p in doc.build_prices if p.price == row.build_price), None)
            out["build_price"] = [build.url] if build is not None and build.url else []
        return out

    def search_models(self, query: str) -> SearchResult:
        data, lookup = self._data()
        q = query.strip()
        if not q:
            raise ToolFailure("query is empty")
        found: dict[str, SearchMatch] = {}

        def add(key_text: str, how: How, identity: str) -> None:
            if identity in found or len(found) >= SEARCH_LIMIT:
                return
            m = lookup.models[identity]
            found[identity] = SearchMatch(identity=identity, name=m.name, slug=m.slug, matched=key_text, how=how,
                                          boards=m.boards, page=m.page, api=m.api)

        qc, qf = q.casefold(), fold(q)
        for k in lookup.keys:
            if k.text.casefold() == qc:
                add(k.text, k.how, k.identity)
        if qf:
            for f, k in lookup.key_folds:
                if f == qf:
                    add(k.text, "folded", k.identity)
            for f, k in lookup.key_folds:
                if qf in f:
                    add(k.text, "contains", k.identity)
        if not found:  # the closest identity keys and display names
            for name in nearest(q, [*lookup.models, *(m.name for m in lookup.models.values())]):
                key = lookup.exact[name.casefold()]
                add(key.text, "similar", key.identity)
        return SearchResult(snapshot=data.index.snapshot, query=query, matches=list(found.values()))

    def model_history(self, model: str, board: str = "orchestrator") -> HistoryResult:
        data, lookup = self._data()
        summary = lookup.model(model)
        doc = self._model_doc(data, summary)
        board_id = lookup.board(board, extra=[b for b in doc.history if b not in lookup.boards])
        points = doc.history.get(board_id, [])
        dates = {p.date for p in points}
        title = lookup.boards[board_id].title if board_id in lookup.boards else None
        return HistoryResult(snapshot=doc.snapshot, identity=doc.identity, name=doc.name, board=board_id,
                             board_title=title, points=points, snapshots=data.index.snapshots,
                             absent=[d for d in data.index.snapshots if d not in dates])

    def sources(self) -> SourcesResult:
        data, _ = self._data()
        return SourcesResult(snapshot=data.index.snapshot, sources=data.index.sources)


__all__ = ["Lookup", "ToolFailure", "Tools", "fold", "nearest"]
