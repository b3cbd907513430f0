"""The provenance of a chapter run.

What built it (parameters, data hashes, model revision, versions, wall time) and the collapsed box
that shows it on the chapter's page.
"""

from __future__ import annotations

import json
import os
import platform
import subprocess
from pathlib import Path
from typing import Any

import torch

import probekit


def provenance(
    slug: str,
    profile: str | None,
    params: dict[str, Any],
    inputs: dict[str, Any],
    seconds: float,
    notebook: Path,
) -> dict[str, Any]:
    """What built a chapter.

    Parameters, seeds, resolved inputs, wall time, software versions, the git commit of the
    notebook's checkout (None outside git) and the machine.
    """
    # heavy to import; only its version is recorded here
    import transformers

    commit = None
    try:
        commit = (
            subprocess.run(
                ["git", "rev-parse", "--short", "HEAD"],
                cwd=notebook.parent,
                capture_output=True,
                text=True,
                timeout=10,
            ).stdout.strip()
            or None
        )
    except (OSError, subprocess.SubprocessError):
        pass
    return {
        "chapter": slug,
        "profile": profile,
        "parameters": params,
        "seeds": {k: v for k, v in params.items() if "seed" in k},
        "inputs": inputs,
        "wall_time_s": round(seconds, 1),
        "versions": {
            "probekit": probekit.__version__,
            "torch": torch.__version__,
            "transformers": transformers.__version__,
            "python": platform.python_version(),
        },
        "commit": commit,
        "machine": f"{platform.machine()}, {os.cpu_count()} CPU cores",
    }


def code_cell(value: Any) -> str:
    """A value as a table cell's code span (a pipe would end the cell)."""
    text = json.dumps(value) if not isinstance(value, str) else value
    return "`" + text.replace("|", "\\|").replace("\n", " ") + "`"


def text_cell(help_text: str) -> str:
    """Help text as a table cell: pipes and asterisks are literal."""
    return help_text.replace("|", "\\|").replace("*", "\\*").replace("\n", " ")


def provenance_markdown(info: dict[str, Any], declared: dict, params: dict[str, Any]) -> str:
    """A collapsed MyST admonition: parameter table, then inputs, seeds, versions, wall time."""
    rows = ["| parameter | type | value in this build | default | help |", "|---|---|---|---|---|"]
    for name, p in declared.items():
        rows.append(
            f"| `{name}` | `{p.type}` | {code_cell(params[name])} | {code_cell(p.default)} | "
            f"{text_cell(p.help)} |"
        )
    lines = [
        "```{admonition} Parameters and provenance of this page",
        ":class: dropdown",
        "",
        f"Built with profile **{info['profile']}** in {info['wall_time_s']:.0f} s "
        f"on {info['machine']}.",
        "",
        *rows,
        "",
    ]
    for key, m in info["inputs"]["models"].items():
        shown = m["name"] if key in (m["name"], "default") else f"{key} ({m['name']})"
        lines.append(f"- Model: `{shown}`, revision `{m['revision']}`, from the {m['source']}.")
    for key, t in info["inputs"]["treebanks"].items():
        hashes = ", ".join(f"{s} `{h[:12]}`" for s, h in t["sha256"].items())
        lines.append(
            f"- Treebank `{key}`: {t['name']} from the {t['source']} dir; sha256 {hashes}."
        )
    if info["seeds"]:
        lines.append(
            "- Seeds: " + ", ".join(f"`{k}` = {v}" for k, v in info["seeds"].items()) + "."
        )
    v = info["versions"]
    lines.append(
        f"- Software: probekit {v['probekit']}, torch {v['torch']}, transformers "
        f"{v['transformers']}, Python {v['python']}"
        + (f"; commit `{info['commit']}`." if info["commit"] else ".")
    )
    lines.append("```")
    return "\n".join(lines)
