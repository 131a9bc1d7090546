"""MCP server benchmark (not a timed test): server start and tool-call latency on the bundled snapshot.

Starts ``modelboards mcp`` over stdio with the SDK's own client, ``--starts`` times, and
reports the start time (process launch to a completed ``initialize`` handshake). Then calls
every tool ``--rounds`` times with varied arguments and reports p50 and p95 per tool and
overall, measured at the client (what an agent waits for: transport, server, and the SDK
client's own validation of the result against the output schema), and the same calls made
in process on the server object (``MCPServer.call_tool``: argument validation, the tool,
result conversion). Limits: p95 of a tool call < 50 ms, start < 2 s; the printed ratios are
measured / limit (below 1 is within the limit). On a shared machine wall times grow with the
load, so the CPU seconds are printed too: the server process's CPU per start (from
``getrusage`` of the reaped child) and the client process's CPU per call, which are what the
wall times come to on an idle machine.

    python tests/bench/bench_mcp.py [--rounds 20] [--starts 3]
"""

from __future__ import annotations

import argparse
import resource
import statistics
import sys
import time
from pathlib import Path

import anyio

ROOT = Path(__file__).resolve().parents[2]
MODELBOARDS = str(Path(sys.executable).parent / "modelboards")
P95_LIMIT_MS = 50.0
START_LIMIT_S = 2.0

CALLS = [
    ("list_boards", [{}]),
    ("get_board", [{"board": "orchestrator"}, {"board": "mid-tier", "max_blended_price": 3.0},
                   {"board": "open-weight", "top": 5, "hide_partial": True}]),
    ("explain_model", [{"model": "gpt-6"}, {"model": "Claude Sonnet 5", "board": "mid-tier"}]),
    ("compare_models", [{"models": ["gpt-6", "claude-opus-5.5"]},
                        {"models": ["gpt-6", "claude-opus-5.5", "gemini-3-pro", "grok-5", "deepseek-v4"]}]),
    ("pick_model", [{"board": "orchestrator", "max_blended_price": 1.0}, {"board": "rtx-3090"}]),
    ("search_models", [{"query": "claude"}, {"query": "gpt 6 high"}]),
    ("model_history", [{"model": "gpt-6"}, {"model": "deepseek-v4", "board": "rote"}]),
    ("sources", [{}]),
]


def _pct(values: list[float], q: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, max(0, round(q * (len(s) - 1))))]


def _children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


async def _client_run(rounds: int, starts: int) -> tuple[list[float], list[float], dict[str, list[float]],
                                                         dict[str, list[float]]]:
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters

    params = StdioServerParameters(command=MODELBOARDS, args=["--config", str(ROOT / "site.yml"), "mcp"],
                                   cwd=str(ROOT))
    per_tool: dict[str, list[float]] = {name: [] for name, _ in CALLS}
    cpu_tool: dict[str, list[float]] = {name: [] for name, _ in CALLS}
    async with Client(params, mode="legacy") as client:
        for name, variants in CALLS:  # warm-up: the client compiles each output schema once
            await client.call_tool(name, variants[0])
        for r in range(rounds):
            for name, variants in CALLS:
                args = variants[r % len(variants)]
                t, c = time.perf_counter(), time.process_time()
                res = await client.call_tool(name, args)
                per_tool[name].append(1000 * (time.perf_counter() - t))
                cpu_tool[name].append(1000 * (time.process_time() - c))
                assert not res.is_error, (name, args, res.content)
    start_times, start_cpu = [], []
    for _ in range(starts):
        before = _children_cpu()
        t0 = time.perf_counter()
        async with Client(params, mode="legacy"):
            start_times.append(time.perf_counter() - t0)
        start_cpu.append(_children_cpu() - before)  # the server has exited and been reaped
    return start_times, start_cpu, per_tool, cpu_tool


async def _server_run(rounds: int) -> dict[str, list[float]]:
    from builder.config import load_config
    from builder.mcp.data import ApiStore, LocalBackend
    from builder.mcp.server import create_server

    cfg, base = load_config(ROOT / "site.yml")
    server = create_server(ApiStore(LocalBackend(cfg, base, ROOT / "snapshots")))
    per_tool: dict[str, list[float]] = {name: [] for name, _ in CALLS}
    for r in range(rounds):
        for name, variants in CALLS:
            args = variants[r % len(variants)]
            t = time.perf_counter()
            await server.call_tool(name, args)
            per_tool[name].append(1000 * (time.perf_counter() - t))
    return per_tool


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=20, help="calls per tool (cycling through its argument sets)")
    ap.add_argument("--starts", type=int, default=3, help="server starts to time")
    a = ap.parse_args()
    starts, start_cpu, client, client_cpu = anyio.run(_client_run, a.rounds, a.starts)
    server = anyio.run(_server_run, a.rounds)
    print(f"{'tool':<16} {'client p50':>10} {'client p95':>10} {'client CPU':>10} {'server p50':>10} "
          f"{'server p95':>10}   (ms; client = wall time at the SDK client, CPU = its own p95)")
    for name, _ in CALLS:
        c, s = client[name], server[name]
        print(f"{name:<16} {_pct(c, .5):>10.2f} {_pct(c, .95):>10.2f} {_pct(client_cpu[name], .95):>10.2f} "
              f"{_pct(s, .5):>10.2f} {_pct(s, .95):>10.2f}")
    every_c = [x for v in client.values() for x in v]
    every_cpu = [x for v in client_cpu.values() for x in v]
    every_s = [x for v in server.values() for x in v]
    p95_c, p95_s = _pct(every_c, .95), _pct(every_s, .95)
    print(f"{'all tools':<16} {_pct(every_c, .5):>10.2f} {p95_c:>10.2f} {_pct(every_cpu, .95):>10.2f} "
          f"{_pct(every_s, .5):>10.2f} {p95_s:>10.2f}")
    start = statistics.median(starts)
    print(f"server start: median {start:.2f} s wall of {len(starts)} ({', '.join(f'{s:.2f}' for s in starts)}); "
          f"server CPU per start (launch, handshake, exit) median {statistics.median(start_cpu):.2f} s")
    load = open("/proc/loadavg").read().split()[0] if Path("/proc/loadavg").exists() else "?"
    print(f"load average (1 min) at the end: {load}")
    ok_call, ok_start = p95_c < P95_LIMIT_MS, start < START_LIMIT_S
    print(f"p95 tool call (client) / limit {P95_LIMIT_MS:.0f} ms: {p95_c / P95_LIMIT_MS:.2f}x "
          f"{'ok' if ok_call else 'TOO SLOW'}; server side {p95_s / P95_LIMIT_MS:.2f}x")
    print(f"server start / limit {START_LIMIT_S:.0f} s: {start / START_LIMIT_S:.2f}x "
          f"{'ok' if ok_start else 'TOO SLOW'}")
    return 0 if ok_call and ok_start else 1


if __name__ == "__main__":
    sys.exit(main())
