"""Errors a user can cause. The CLI prints them as one line and exits with their code."""


class UserError(Exception):
    """A bad config, file, option or value: one clear line, exit code 2, nothing written."""

    exit_code = 2


class CheckFailed(Exception):
    """A check the user asked for failed (``--strict`` warnings, ``verify`` misses): exit code 1."""

    exit_code = 1
