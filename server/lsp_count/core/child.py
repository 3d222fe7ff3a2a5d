"""Running a Python child process that answers with one JSON object.

Used only on explicit opt-in (``--allow-transformers``, ``--execute``): the child
imports torch/transformers or the user's code so the caller never does. Hub access
is switched off in the child; any failure comes back as ``{"error": "..."}``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys


def child_python() -> str:
    """The interpreter for children: ``LSP_COUNT_PYTHON`` (one with torch), else this one."""
    return os.environ.get("LSP_COUNT_PYTHON") or sys.executable


def run_json_child(args: list[str], *, timeout: float, stdin_text: str | None = None,
                   cwd: str | None = None, extra_env: dict[str, str] | None = None) -> dict:
    """Run ``python -c <args...>``; the last line of its stdout is the JSON answer."""
    env = dict(os.environ, HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1", **(extra_env or {}))
    try:
        done = subprocess.run(
            [child_python(), "-c", *args], input=stdin_text, capture_output=True, text=True, timeout=timeout,
            cwd=cwd, env=env, stdin=None if stdin_text is not None else subprocess.DEVNULL,
        )
        lines = done.stdout.strip().splitlines()
        result = json.loads(lines[-1]) if lines else {"error": done.stderr.strip()[-300:] or "no output"}
    except subprocess.TimeoutExpired:
        return {"error": f"timed out after {timeout:g} s"}
    except (OSError, ValueError) as exc:
        return {"error": str(exc)}
    return result if isinstance(result, dict) else {"error": f"unexpected answer {result!r}"[:300]}
