"""The MCP tools and resources ``modelboards mcp`` serves, and the API's endpoints, described once.

The server takes each tool's description and argument descriptions from here, and the
"API and MCP" page lists them from here, so the page cannot drift from the server (a test
compares this catalogue with the server's own tool list).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ToolArg:
    name: str
    type: str
    "As the page shows it, e.g. 'integer 1..500'."
    default: str | None
    "The default as JSON text; None when the argument is required."
    description: str


@dataclass(frozen=True)
class ToolSpec:
    name: str
    description: str
    args: tuple[ToolArg, ...]
    returns: str

    def arg(self, name: str) -> str:
        """The description of one argument (a KeyError for an unknown name)."""
        return next(a.description for a in self.args if a.name == name)


MODEL_ARG = "A model: identity key, display name, any published spelling or a configured alias."
BOARD_ARG = "A board id, e.g. 'orchestrator' (list_boards gives them all)."

TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec(
        "list_boards",
        "Every role board of the current snapshot: id, title, role, family weights, ranked count, as-of date "
        "and warnings.",
        (),
        "boards[], snapshot, warnings, sources",
    ),
    ToolSpec(
        "get_board",
        "The top rows of one board, after the filters. Each row has the same fields, names and order as the "
        "board download data/boards/{id}.json, plus where each number came from (provenance).",
        (
            ToolArg("board", "string", None, BOARD_ARG),
            ToolArg("top", "integer 1..1000", "20", "How many rows to return (after the filters)."),
            ToolArg("open_weight_only", "boolean", "false", "Only models whose weights are published (open weight)."),
            ToolArg("max_blended_price", "number >= 0 or null", "null",
                    "Only rows whose blended token price (USD per million tokens) is at most this."),
            ToolArg("hide_partial", "boolean", "false", "Leave out rows carrying the partial label."),
        ),
        "board, rule, rows[], new[], matched, provenance, download, snapshot, sources",
    ),
    ToolSpec(
        "explain_model",
        "The arithmetic behind one model's score on one board, as modelboards explain prints it: each "
        "source's calibration, the family means, R, the rank and the labels.",
        (
            ToolArg("model", "string", None, MODEL_ARG),
            ToolArg("board", "string", '"orchestrator"', BOARD_ARG),
        ),
        "explain (structured, with .text), page, snapshot",
    ),
    ToolSpec(
        "compare_models",
        "Two to five models side by side: calibrated values per family, score and rank on every board, prices, "
        "licence, parameters, and for each pair in the Arena fit the win probability the fitted ratings "
        "predict and the observed head-to-head record.",
        (ToolArg("models", "array of 2..5 strings", None,
                 "The models to compare, each an identity key, display name, published spelling or alias."),),
        "models[], arena_pairs[], arena (with its vote flip budgets), snapshot",
    ),
    ToolSpec(
        "pick_model",
        "The first row of a board that passes the filters, with the reason, the runner-up and the rule's "
        "text. A machine id (e.g. 'rtx-3090') picks among the home-computer picks, which use their own rule.",
        (
            ToolArg("board", "string", None, "A board id or a home-computer machine id."),
            ToolArg("max_blended_price", "number >= 0 or null", "null",
                    "Only rows whose blended token price (USD per million tokens) is at most this."),
            ToolArg("open_weight", "boolean or null", "null",
                    "true: only open-weight models; false: only closed ones; null: either."),
        ),
        "target, rule, pick, runner_up, reason, provenance, snapshot",
    ),
    ToolSpec(
        "search_models",
        "Find models by any spelling, identity key or alias (case, spaces and punctuation ignored; the closest "
        "names when nothing matches exactly).",
        (ToolArg("query", "string, 1..200 characters", None, "What to look for."),),
        "matches[] (identity, name, how it matched, boards, page, api), snapshot",
    ),
    ToolSpec(
        "model_history",
        "One model's score and rank on one board over the saved snapshots, oldest first.",
        (
            ToolArg("model", "string", None, MODEL_ARG),
            ToolArg("board", "string", '"orchestrator"', BOARD_ARG),
        ),
        "points[] (date, rank, score, r, strip, method id, snapshot URL), snapshots[], snapshot",
    ),
    ToolSpec(
        "sources",
        "Every source of the snapshot: status, publication and fetch dates, licence, attribution and URL.",
        (),
        "sources[], snapshot",
    ),
)

TOOLS_BY_NAME = {t.name: t for t in TOOLS}

RESOURCES: tuple[tuple[str, str, str], ...] = (
    ("modelboards://snapshot/latest", "application/json",
     "The API index of the current snapshot (api/v1/index.json): snapshot, boards, models, sources."),
    ("modelboards://boards/{id}", "application/json", "One board's API document (api/v1/boards/{id}.json)."),
    ("modelboards://methodology", "text/markdown", "The methodology page as markdown."),
)


def endpoint_paths() -> list[tuple[str, str, str]]:
    """(name, path below the site root, description) of every API endpoint and download."""
    return [
        ("index", "api/v1/index.json", "Snapshot, endpoints, boards, models (with search keys), picks, sources."),
        ("board", "api/v1/boards/{id}.json", "One board: the download's rows, where each number came from, rule."),
        ("model", "api/v1/models/{slug}.json",
         "One model: facts, calibrated values, rows and explain arithmetic, prices, Arena fit, history."),
        ("methodology", "api/v1/methodology.md", "The methodology page as markdown."),
        ("schema_index", "api/v1/schema/index.json", "JSON Schema of index.json."),
        ("schema_board", "api/v1/schema/board.json", "JSON Schema of boards/{id}.json."),
        ("schema_model", "api/v1/schema/model.json", "JSON Schema of models/{slug}.json."),
        ("board_download", "data/boards/{id}.json", "The board download (same rows as the board document)."),
        ("snapshot_download", "data/snapshots/{date}.json", "The complete snapshot of a day."),
    ]
