"""``modelboards new DIR``: start a site folder that builds at once, offline.

    DIR/site.yml                   commented configuration: the demo sources (or none, --empty)
    DIR/content/about.md           the site's own about page (other pages come from the package)
    DIR/templates/                 empty: a template or static file put here overrides that one file
    DIR/snapshots/                 the demo history (demo sources only), so the race plays at once
    DIR/.gitignore                 site/ and .modelboards/ (built output and local state)
    DIR/.github/workflows/         refresh.yml (live fetch, commits the snapshot), pages.yml (deploy)
    DIR/README.md                  how to build, override and publish your own evals

The files come from the package (``builder/data/scaffold/``; the demo configuration is the
repository's own ``site.yml``, which the wheel carries in ``builder/_vendor/``). Everything
is written into a temporary folder beside DIR and moved into place, so a failure leaves
nothing behind. DIR must be new or empty.
"""

from __future__ import annotations

import json
import re
import shutil
import tempfile
from importlib import metadata
from pathlib import Path

import click

from builder.config import PACKAGE_DATA, load_config
from builder.errors import UserError
from builder.util.dirs import PACKAGE_DIR, REPO_ROOT, package_dir

SCAFFOLD = PACKAGE_DATA / "scaffold"
"The files of a new site folder."

DEMO_HEADER = """\
# ModelBoards site configuration (started by `modelboards new`).
# Every field is documented in ModelBoards' builder/config.py; paths are relative to this
# file, else to the package's bundled data (the demo payloads under demo/ live there).
# Build with `modelboards build` (offline, from the recorded payloads), preview with
# `modelboards serve`, fetch the live sources with `modelboards build --live`.
# Templates, styles and pages: a file in templates/, templates/static/ or content/ replaces
# the package's file of the same name; everything else comes from the package.
"""

EVALS_EXAMPLES = """
# Your own eval results: add a suite per board. `format:` says what the files are:
#   modelboards      JSON Lines / CSV / JSON records: model_id, task_id, metric_name, score
#   lm-eval-harness  an lm-evaluation-harness --output_path folder (run with --log_samples)
#   inspect          Inspect AI logs: .eval archives and .json logs (a folder of them)
#  - id: my-suite
#    title: My suite
#    format: lm-eval-harness
#    paths: [results/lm-eval]
#    description: lm-evaluation-harness runs, one item per sample.
"""


def package_version() -> str:
    """The installed ModelBoards version (what the workflows pin)."""
    try:
        return metadata.version("modelboards")
    except metadata.PackageNotFoundError:
        return "0.1.0"


def demo_config_text() -> str:
    """The package's own demo ``site.yml``: the repository's in a checkout, the wheel's copy else."""
    checkout = (REPO_ROOT / "pyproject.toml").is_file()
    for p in ([REPO_ROOT / "site.yml"] if checkout else []) + [PACKAGE_DIR / "_vendor" / "site.yml"]:
        if p.is_file():
            return p.read_text(encoding="utf-8")
    raise UserError("the demo site.yml is not in this installation (rebuild the wheel)")


def render_demo_config(text: str, title: str, slug: str) -> str:
    """The demo configuration with this site's header comment, title and URL, and an
    example of eval suites (commented)."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if not line.startswith("#"))
    body = "\n".join(lines[start:]) + "\n"
    body = re.sub(r"(?m)^(site:\n(?:  .*\n)*?)  title: .*$", lambda m: f"{m.group(1)}  title: {json.dumps(title)}",
                  body, count=1)
    body = re.sub(r"(?m)^(site:\n(?:  .*\n)*?)  url: .*$",
                  lambda m: f"{m.group(1)}  url: https://example.github.io/{slug}/   # where the site is published",
                  body, count=1)
    return DEMO_HEADER + body + EVALS_EXAMPLES


def demo_snapshots() -> list[Path]:
    """The package's demo history: its dated snapshots that say ``"demo": true`` and were
    written by ``backfill --demo`` (they record their ``backfill``). A snapshot a build wrote
    into a checkout's ``snapshots/`` (``make site`` writes today's) is the operator's own day,
    not history to hand to a new site: it would stand in for the new site's first build."""
    folder = package_dir("snapshots")
    out = []
    for p in sorted(folder.glob("????-??-??.json")):
        try:
            data = json.loads(p.read_text(encoding="utf-8"))
            if data.get("demo") is True and data.get("backfill"):
                out.append(p)
        except (OSError, ValueError):
            continue
    return out


def write_site_folder(target: Path, *, empty: bool, title: str | None = None) -> Path:
    """Create the site folder ``target`` (new or empty); return it. Raises UserError."""
    target = Path(target)
    if target.exists() and (not target.is_dir() or any(target.iterdir())):
        raise UserError(f"{target}: not empty; `modelboards new` writes only into a new or empty folder")
    name = target.resolve().name or "site"
    title = title or name
    slug = re.sub(r"[^a-z0-9-]+", "-", name.lower()).strip("-") or "site"
    version = package_version()
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{name}.new-", dir=target.parent))
    try:
        if empty:
            config = (SCAFFOLD / "site-empty.yml").read_text(encoding="utf-8")
            config = config.replace("title: My leaderboard", f"title: {json.dumps(title)}", 1)
            config = config.replace("https://example.github.io/my-leaderboard/",
                                    f"https://example.github.io/{slug}/", 1)
        else:
            config = render_demo_config(demo_config_text(), title, slug)
        (tmp / "site.yml").write_text(config, encoding="utf-8")
        load_config(tmp / "site.yml")  # the scaffold must be a valid site, before anything is in place
        (tmp / "content").mkdir()
        about = (SCAFFOLD / "content" / "about.md").read_text(encoding="utf-8")
        (tmp / "content" / "about.md").write_text(about.replace("@TITLE@", title), encoding="utf-8")
        (tmp / "templates" / "static").mkdir(parents=True)
        (tmp / "templates" / ".gitkeep").write_text("")
        (tmp / "templates" / "static" / ".gitkeep").write_text("")
        (tmp / "snapshots").mkdir()
        if empty:
            (tmp / "snapshots" / ".gitkeep").write_text("")
        else:
            for snap in demo_snapshots():
                shutil.copyfile(snap, tmp / "snapshots" / snap.name)
        shutil.copyfile(SCAFFOLD / "gitignore", tmp / ".gitignore")
        workflows = tmp / ".github" / "workflows"
        workflows.mkdir(parents=True)
        for wf in sorted((SCAFFOLD / "workflows").glob("*.yml")):
            (workflows / wf.name).write_text(wf.read_text(encoding="utf-8").replace("@VERSION@", version),
                                             encoding="utf-8")
        readme = (SCAFFOLD / "README.md").read_text(encoding="utf-8")
        (tmp / "README.md").write_text(readme.replace("@TITLE@", title).replace("@VERSION@", version),
                                       encoding="utf-8")
        if target.exists():
            target.rmdir()  # empty (checked above): the finished folder takes its place
        tmp.replace(target)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return target


@click.command("new")
@click.argument("directory", type=click.Path(file_okay=False, path_type=Path))
@click.option("--empty", is_flag=True, help="No sources: a site for your own eval suites only.")
@click.option("--title", default=None, help="The site's title [default: the folder's name].")
def new_cmd(directory: Path, empty: bool, title: str | None) -> None:
    """Start a site folder DIRECTORY: a commented site.yml (the demo sources, or none with
    --empty), content/, an empty templates/ for overrides, the demo history, a .gitignore, a
    README and the GitHub Actions workflows (refresh and Pages). `modelboards build` inside
    it works offline at once."""
    target = write_site_folder(directory, empty=empty, title=title)
    n = len(list((target / "snapshots").glob("*.json")))
    click.echo(f"new site in {target} ({'no sources' if empty else f'demo sources, {n} demo snapshots'})")
    click.echo(f"next: cd {directory} && modelboards build && modelboards serve")
