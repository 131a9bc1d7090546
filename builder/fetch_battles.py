"""The live Arena battles dump: one large file streamed to disk, resumable, size-capped.

The public clean_battle dump is about 2 GB, too big to hold in memory like the other
payloads. It is streamed into ``<store>/battles/<file>.part``; an interrupted download
(dropped connection, timeout, killed process) keeps the part file, and the next attempt asks
only for the rest with an HTTP ``Range`` request carrying ``If-Range`` (the strong ETag, else the
Last-Modified, the first response of that file gave), so a dump that changed upstream in
between arrives whole from zero, never half old, half new; a part file without a validator,
or a 206 with another ETag, also restarts from zero. A server that ignores ``Range`` (200
instead of 206) restarts the file from zero. A file that cannot be written (a full disk, a
store folder that is a plain file) fails this source with the path, never the build. Only
a complete, capped download is renamed to ``<store>/battles/<file>``, so the previous
complete dump stays in use until a new one has fully arrived. The attempt's status
(``FetchStatus``) is written beside it.

A complete download must still pass two checks before it may replace the stored dump:

* it is read by the project's own battles reader (``builder.pairwise.scan.read_battles``, the DuckDB
  reader the Arena fit uses, in bounded memory, so the check follows the reader when it changes): an
  invalid JSON Lines body, raw gzip bytes or an HTML error page is refused;
* plausibility: at least ``arena.live_min_battles`` valid battles, and at most
  ``arena.live_max_bad_share`` of the rows bad (a missing or same model, an unknown winner).

A refused dump is deleted (it is complete, so resuming it would only repeat it) and the
status says why. Redirects, the idle timeout (``arena.live_timeout``) and the total deadline
of one attempt (``arena.live_deadline``) work as for every other source (``builder.fetch``).
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import sys
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path, PurePosixPath
from urllib.parse import urlsplit

import httpx
import tenacity

import builder.fetch as fetch_module
from builder.config import ArenaConfig, FetchSettings
from builder.errors import UserError
from builder.fetch import Deadline, FetchError, make_client, open_stream
from builder.records import FetchStatus
from builder.util.io import write_text_atomic

log = logging.getLogger(__name__)

CHUNK = 1 << 20


@dataclass(frozen=True)
class Download:
    """A finished download: where it is, how big, and from which byte it resumed."""

    path: Path
    bytes: int
    resumed_from: int
    http_status: int
    final_url: str


def _file_name(url: str) -> str:
    name = PurePosixPath(urlsplit(url).path).name
    return name if name and name not in (".", "..") else "battles.json"


def _download_once(client: httpx.Client, url: str, part: Path, *, timeout: float, max_bytes: int,
                   report, deadline_s: float = 3600.0, allowed_hosts: list[str] | tuple[str, ...] = ()) -> Download:
    """One GET of the rest of ``url`` appended to ``part``; raises FetchError."""
    have = part.stat().st_size if part.exists() else 0
    validator = read_validator(part) if have else None
    if have and validator is None:  # nothing proves the rest would come from the same file
        part.unlink()
        have = 0
    # Byte ranges only make sense on the file as stored: ask for no content coding. If-Range:
    # the rest only if the file is still the one the part came from, else the whole new file.
    headers = {"Accept-Encoding": "identity",
               **({"Range": f"bytes={have}-", "If-Range": validator} if have and validator else {})}
    deadline = Deadline(deadline_s)
    try:
        with deadline, open_stream(client, url, timeout=timeout, deadline=deadline, allowed_hosts=allowed_hosts,
                                   headers=headers) as (resp, final):
            code = resp.status_code
            if code == 416 and have:  # nothing left to send: the part file is complete
                total = resp.headers.get("content-range", "").rpartition("/")[2]
                if total.isdigit() and int(total) == have:
                    return Download(part, have, have, code, final)
                part.unlink()
                raise FetchError(f"HTTP 416 from {url}: the partial file does not match; restarting",
                                 http_status=code, retryable=True)
            if code >= 500:
                raise FetchError(f"HTTP {code} from {url}", http_status=code, retryable=True)
            if code not in (200, 206):
                raise FetchError(f"HTTP {code} from {url}", http_status=code)
            start = have if code == 206 else 0  # 200: the server ignored Range or the file changed, start over
            if code == 206 and validator is not None and _validator(resp.headers) not in (None, validator):
                part.unlink()  # the server sent a range of another file despite If-Range
                raise FetchError(f"the battles dump changed upstream while resuming ({url}); restarting",
                                 http_status=code, retryable=True)
            if start == 0:
                write_validator(part, _validator(resp.headers))
            length = resp.headers.get("content-length", "")
            if length.isdigit() and start + int(length) > max_bytes:
                raise FetchError(f"battles dump too large: {start + int(length)} bytes exceeds the cap of "
                                 f"{max_bytes} bytes ({url})", http_status=code)
            done = start
            try:
                with open(part, "ab" if start else "wb") as fh:
                    for chunk in resp.iter_raw():  # as it arrives: a drop loses nothing already received
                        done += len(chunk)
                        if done > max_bytes:
                            raise FetchError(f"battles dump too large: more than the cap of {max_bytes} bytes, "
                                             f"aborted ({url})", http_status=code)
                        fh.write(chunk)
                        report(done, int(length) + start if length.isdigit() else None)
                        deadline.check(url)
            except OSError as exc:  # a full disk fails this source, never the build
                raise FetchError(f"cannot write {part}: {exc.strerror or exc} (kept {_size(part)} bytes to resume)",
                                 http_status=code) from exc
            deadline.check(url)
            return Download(part, done, start, code, final)
    except FetchError as exc:
        if deadline.expired and "deadline" not in str(exc):
            raise FetchError(f"{deadline.error(url)} (kept {_size(part)} bytes to resume)") from exc
        raise
    except httpx.HTTPError as exc:
        if deadline.expired:
            raise FetchError(f"{deadline.error(url)} (kept {_size(part)} bytes to resume)") from exc
        err = fetch_module._transport_error(exc, url, timeout)  # the same reasons as every other source
        raise FetchError(f"{err} (kept {_size(part)} bytes to resume)", retryable=err.retryable) from exc


def _validator(headers: httpx.Headers) -> str | None:
    """What ``If-Range`` may carry for this response: a strong ETag, else Last-Modified."""
    etag = headers.get("etag")
    if etag and not etag.startswith("W/"):  # a weak ETag cannot be used in If-Range
        return etag
    return headers.get("last-modified") or None


def _validator_path(part: Path) -> Path:
    return part.with_name(part.name + ".validator")


def read_validator(part: Path) -> str | None:
    """The ETag or Last-Modified of the file ``part`` began as (None: unknown, do not resume)."""
    try:
        value = _validator_path(part).read_text(encoding="utf-8").strip()
    except OSError:
        return None
    return value or None


def write_validator(part: Path, value: str | None) -> None:
    path = _validator_path(part)
    if value:
        write_text_atomic(path, value)
    else:
        path.unlink(missing_ok=True)


def check_battles_dump(path: Path, arena: ArenaConfig) -> str | None:
    """Why the downloaded dump at ``path`` must not be used (None: it may).

    Reads it with the battles reader the Arena fit uses, then applies the plausibility
    thresholds ``arena.live_min_battles`` and ``arena.live_max_bad_share``.
    """
    from builder.pairwise.scan import read_battles

    try:
        battles = read_battles(path)
    except UserError as exc:
        return str(exc).replace(str(path), path.name.removeprefix(CANDIDATE_PREFIX))
    except Exception as exc:  # whatever the reader makes of garbage, it is not a dump
        return f"{type(exc).__name__}: {exc}"
    report = battles.report
    bad = sum(report.bad_rows.values())
    valid = report.rows_read - bad
    if valid < arena.live_min_battles:
        return f"{valid} valid battles, fewer than arena.live_min_battles = {arena.live_min_battles}"
    share = bad / report.rows_read if report.rows_read else 1.0
    if share > arena.live_max_bad_share:
        kinds = ", ".join(f"{k} {n}" for k, n in report.bad_rows.items() if n)
        return (f"{bad} of {report.rows_read} rows are bad ({kinds}): a share of {share:.0%} is over "
                f"arena.live_max_bad_share = {arena.live_max_bad_share:g}")
    return None


CANDIDATE_PREFIX = ".candidate-"


def _size(path: Path) -> int:
    return path.stat().st_size if path.exists() else 0


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(CHUNK), b""):
            h.update(block)
    return h.hexdigest()


class _Progress:
    """Bytes downloaded, on stderr when it is a terminal."""

    def __init__(self, enabled: bool, name: str) -> None:
        self.bar = None
        if enabled and sys.stderr.isatty():
            from rich.console import Console
            from rich.progress import BarColumn, DownloadColumn, Progress, TransferSpeedColumn

            self.bar = Progress("battles " + name, BarColumn(), DownloadColumn(), TransferSpeedColumn(),
                                console=Console(stderr=True))
            self.bar.start()
            self.task = self.bar.add_task("", total=None)

    def __call__(self, done: int, total: int | None) -> None:
        if self.bar is not None:
            self.bar.update(self.task, completed=done, total=total)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.stop()


def battles_dir(store_dir: Path) -> Path:
    return store_dir / "battles"


def fetch_battles(arena: ArenaConfig, settings: FetchSettings, store_dir: Path, *, progress: bool = False,
                  now: datetime | None = None, timeout: float | None = None) -> FetchStatus:
    """Download ``arena.live_url`` into the store (resuming a partial download); never raises
    for an upstream failure: the status says what happened and the last complete dump stays.

    ``timeout`` overrides ``arena.live_timeout`` (the idle timeout)."""
    now = now or datetime.now(UTC)
    url = arena.live_url or ""
    folder = battles_dir(store_dir)
    name = _file_name(url)
    final, part = folder / name, folder / (name + ".part")
    previous = read_battles_status(store_dir)
    kept_at = previous.payload_fetched_at if previous and _is_file(final) else None

    def failed(error: str, http_status: int | None = None, origin: str = url) -> FetchStatus:
        error = " ".join(error.split())  # one line, whatever the server or a library said
        status = FetchStatus("arena-battles", False, http_status, error, _size(part), None, now, kept_at, origin, True)
        try:
            write_battles_status(store_dir, status)
        except OSError as exc:  # the status of a store that cannot be written: this run's report only
            log.warning("battles: cannot write the status (%s): %s", exc.filename or store_dir, exc.strerror or exc)
        return status

    try:
        return _fetch_battles(arena, settings, folder, final, part, failed, progress=progress, now=now,
                              timeout=arena.live_timeout if timeout is None else timeout, store_dir=store_dir)
    except OSError as exc:  # a full disk, a store folder that is a file: this source fails, not the build
        return failed(f"cannot write {exc.filename or folder}: {exc.strerror or exc}")


def _is_file(path: Path) -> bool:
    try:
        return path.is_file()
    except OSError:
        return False


def _fetch_battles(arena: ArenaConfig, settings: FetchSettings, folder: Path, final: Path, part: Path, failed,
                   *, progress: bool, now: datetime, timeout: float, store_dir: Path) -> FetchStatus:
    url = arena.live_url or ""
    name = final.name
    folder.mkdir(parents=True, exist_ok=True)

    if not url.startswith(("http://", "https://")):
        return failed("no live URL configured for the Arena battles (arena.live_url)")
    report = _Progress(progress, name)
    retrying = tenacity.Retrying(
        stop=tenacity.stop_after_attempt(settings.retries),
        wait=tenacity.wait_exponential(multiplier=settings.backoff),
        retry=tenacity.retry_if_exception(lambda e: isinstance(e, FetchError) and e.retryable),
        sleep=lambda seconds: fetch_module._sleep(seconds),  # patched in tests
        before_sleep=lambda rs: log.info("battles: retrying (%s)", rs.outcome.exception() if rs.outcome else None),
    )
    try:
        with make_client(settings) as client:
            got = retrying(_download_once, client, url, part, timeout=timeout, max_bytes=arena.live_max_bytes,
                           report=report, deadline_s=arena.live_deadline, allowed_hosts=arena.live_redirect_hosts)
    except tenacity.RetryError as err:
        last = err.last_attempt.exception()
        return failed(f"{last} (gave up after {settings.retries} attempts)", getattr(last, "http_status", None))
    except FetchError as exc:
        if "too large" in str(exc):
            part.unlink(missing_ok=True)  # never resume past the cap
            write_validator(part, None)
        return failed(str(exc), exc.http_status)
    finally:
        report.close()
    candidate = folder / (CANDIDATE_PREFIX + name)  # same suffix: the reader tells the format by it
    os.replace(part, candidate)
    write_validator(part, None)  # the part is complete: nothing is left to resume
    problem = check_battles_dump(candidate, arena)
    if problem is not None:
        candidate.unlink(missing_ok=True)
        return failed(f"battles dump refused: {problem}; the last good dump stays", got.http_status, got.final_url)
    os.replace(candidate, final)
    status = FetchStatus("arena-battles", True, got.http_status, None, got.bytes, _sha256(final), now, now,
                         got.final_url, True)
    write_battles_status(store_dir, status)
    log.info("battles: %d bytes (resumed from byte %d)", got.bytes, got.resumed_from)
    return status


def write_battles_status(store_dir: Path, status: FetchStatus) -> None:
    write_text_atomic(battles_dir(store_dir) / "status.json", json.dumps(status.to_json(), indent=1))


def read_battles_status(store_dir: Path) -> FetchStatus | None:
    path = battles_dir(store_dir) / "status.json"
    try:
        return FetchStatus.from_json(json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError, KeyError):
        return None


def stored_battles(arena: ArenaConfig, store_dir: Path) -> Path | None:
    """The last complete live dump in the store, or None."""
    if not arena.live_url:
        return None
    final = battles_dir(store_dir) / _file_name(arena.live_url)
    return final if final.is_file() else None
