"""The wheel's one build step beyond pyproject.toml: D3 into ``builder/_vendor/``.

The site's chart and race pages need D3, which comes from the npm package ``d3`` (``npm ci``,
at the version package.json pins). A wheel must build the full site with no Node.js and no
node_modules, so building it copies ``node_modules/d3/dist/d3.min.js`` and the package's ISC
licence into the wheel as ``builder/_vendor/d3.min.js`` and ``builder/_vendor/d3.LICENSE``
(the renderer looks there first, then in node_modules). The repository's demo ``site.yml``
goes there too, as ``builder/_vendor/site.yml``: ``modelboards new`` starts a site from it.
A wheel is refused without D3, or with another D3 than the pinned one; an editable install
(``make install`` runs it before ``npm ci``) skips the copy, the checkout's node_modules
serving instead.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent


def pinned_d3() -> str:
    """The D3 version package.json pins (``dependencies.d3``)."""
    return str(json.loads((ROOT / "package.json").read_text(encoding="utf-8"))["dependencies"]["d3"])


def copy_vendor(dest: Path, *, required: bool) -> bool:
    """Copy D3 and its licence into ``dest``; False (or SystemExit when ``required``) without them."""
    d3 = ROOT / "node_modules" / "d3"
    files = {d3 / "dist" / "d3.min.js": "d3.min.js", d3 / "LICENSE": "d3.LICENSE"}
    missing = [str(p) for p in files if not p.is_file()]
    if missing:
        if required:
            raise SystemExit(f"building the wheel needs D3: {missing[0]} not found (run `npm ci` first)")
        return False
    found = json.loads((d3 / "package.json").read_text(encoding="utf-8")).get("version")
    if found != pinned_d3():
        raise SystemExit(f"node_modules/d3 is {found}, package.json pins {pinned_d3()} (run `npm ci`)")
    dest.mkdir(parents=True, exist_ok=True)
    for src, name in files.items():
        shutil.copyfile(src, dest / name)
    shutil.copyfile(ROOT / "site.yml", dest / "site.yml")
    return True


class BuildPyWithD3(build_py):
    """build_py, then D3 into the built package (not into the source tree)."""

    def run(self) -> None:
        super().run()
        if not self.dry_run:
            copy_vendor(Path(self.build_lib) / "builder" / "_vendor",
                        required=not getattr(self, "editable_mode", False))


setup(cmdclass={"build_py": BuildPyWithD3})
