"""Eval suites: per-task EvalRun scores aggregated into boards (means with bootstrap CIs, win
rates, paired differences) and the TKQR / ORA clarification metrics.

    io         read_eval_runs(paths) -> EvalRun records (JSONL / CSV / JSON), strict
    clarify    read_clarify_scores(paths) -> ClarifyScore; clarify_eval_runs -> EvalRun
    bootstrap  vectorised percentile bootstrap over tasks
    aggregate  compute_eval_reports(runs) -> EvalReport per metric (means, CIs, win rates, pairs)
    report     markdown and JSON rendering, atomic writes
    section    compute_evals_section(suites, base) -> the snapshot's "evals" dict
"""
