"""Shared test setup: offline hub, a private cache, fixtures for data that tests may need."""

from __future__ import annotations

import os
import re
from pathlib import Path

import numpy as np
import pytest
import torch
from hypothesis import settings

from probekit.io.treebanks import Sentence

os.environ.setdefault("HF_HUB_OFFLINE", "1")
# Property tests draw the same examples on every run and machine, so a failure reproduces.
settings.register_profile("probekit", derandomize=True, database=None)
settings.load_profile("probekit")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

FIXTURES = Path(__file__).parent / "fixtures"
REPO = Path(__file__).resolve().parents[1]


def pytest_collection_modifyitems(items):
    """The quick book's tests (tests/test_quick_book.py) first: they take longest, and under
    `make test` one pytest-xdist worker runs them while the others share every other file."""
    items.sort(key=lambda item: item.path.name != "test_quick_book.py")  # stable


@pytest.fixture(scope="session", autouse=True)
def private_cache(tmp_path_factory):
    """Every test session writes its embeddings into its own cache directory."""
    path = tmp_path_factory.mktemp("probekit-cache")
    old = os.environ.get("PROBEKIT_CACHE")
    os.environ["PROBEKIT_CACHE"] = str(path)
    yield path
    if old is None:
        os.environ.pop("PROBEKIT_CACHE", None)
    else:
        os.environ["PROBEKIT_CACHE"] = old


@pytest.fixture(scope="session")
def ewt():
    """UD English EWT through the project's data resolution (the mirror in CI).

    Tests that need it skip, with the reason shown, where it cannot be resolved, except when
    PROBEKIT_REQUIRE_DATA=1 (set by .ci/run), where a missing treebank fails them.
    """
    from probekit.errors import DataNotFoundError
    from probekit.io.treebanks import load_treebank

    try:
        return load_treebank("UD_English-EWT")
    except DataNotFoundError as exc:
        if os.environ.get("PROBEKIT_REQUIRE_DATA") == "1":
            raise
        pytest.skip(f"UD_English-EWT not available: {exc}")


@pytest.fixture(scope="session")
def tiny():
    from probekit.io.treebanks import load_treebank

    return load_treebank(FIXTURES / "tiny")


def build_quick_copy(root: Path, **book_options) -> Path:
    """Copy the project (its library linked) into ``root`` and build its book under the quick
    profile with ``book_options`` for :func:`probekit.book.build.build_book`; returns ``root``."""
    import shutil

    from probekit.book import build, runner
    from probekit.io import treebanks

    for name in ("_config.yml", "_toc.yml", "constraints.txt"):
        shutil.copy(REPO / name, root / name)
    for name in ("notebooks", "params", "book"):
        shutil.copytree(
            REPO / name, root / name, ignore=shutil.ignore_patterns("chapters", "_generated")
        )
    (root / "lib").mkdir()
    (root / "lib" / "probekit").symlink_to(REPO / "lib" / "probekit")
    # The copy lives elsewhere, so it cannot find the data mirror beside the repository: tell it
    # where the treebank resolved from, as a user who moves a project would.
    mirror = treebanks.resolve_treebank("UD_English-EWT").directory.parent
    old = os.environ.get("PROBEKIT_DATA_MIRROR")
    os.environ["PROBEKIT_DATA_MIRROR"] = str(mirror)
    try:
        build.build_book(
            "quick", paths=runner.Paths(root), log=lambda message: None, **book_options
        )
    finally:
        if old is None:
            os.environ.pop("PROBEKIT_DATA_MIRROR", None)
        else:
            os.environ["PROBEKIT_DATA_MIRROR"] = old
    return root


@pytest.fixture(scope="session")
def quick_book(tmp_path_factory, ewt):
    """The whole book built once per session under the quick profile, in a copy of the project.

    Every chapter of _toc.yml runs (the notebook smoke test) on two Dask workers, as `make book`
    runs them, and `jb build -n -W` renders it. That the graph path saves what the sequential
    path saves is tested on small chapters (tests/test_book_graph.py).
    Returns the project root of the copy; the HTML is in `<root>/_build/html`. The tests that
    use it live in tests/test_quick_book.py: `make test` distributes whole files to its
    pytest-xdist workers, so one worker builds the book.
    """
    return build_quick_copy(tmp_path_factory.mktemp("book"), workers=2)


# --------------------------------------------------------------------------------------------
# Helpers several test modules share (imported with ``from conftest import ...``)


@pytest.fixture
def one_thread():
    """One torch thread for the test: the problems are tiny, so more threads only add overhead
    on a shared 2-core machine."""
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


def random_heads(rng: np.random.Generator, n: int) -> np.ndarray:
    """A uniformly random-shaped dependency tree over n words: 1-based heads (n,), 0 = root."""
    perm = rng.permutation(n)
    heads = np.zeros(n, dtype=np.int64)
    for k in range(1, n):
        heads[perm[k]] = perm[rng.integers(k)] + 1
    return heads


def blobs(n: int, seed: int, C: int = 4, d: int = 10, spread: float = 0.5):
    """A linearly separable toy task: C Gaussian blobs in d dimensions, centres fixed (seed 99,
    scale 3), points drawn from ``seed``. Returns X float32 (n, d) and y int (n,)."""
    centres = np.random.default_rng(99).normal(size=(C, d)) * 3
    rng = np.random.default_rng(seed)
    y = rng.integers(0, C, n)
    X = (centres[y] + rng.normal(size=(n, d)) * spread).astype(np.float32)
    return X, y


def hand_sentence(
    words: list[tuple[str, str]] | list[tuple[str, str, int]],
    sent_id: str = "s",
    deprel: list[str] | None = None,
) -> Sentence:
    """A hand-built :class:`~probekit.io.treebanks.Sentence` from (form, upos[, head]) tuples.

    Heads are 1-based, 0 = root; without them every word is headed by the first, the root.
    Relations are ``deprel``, by default "root" or "dep"; lemmas are the forms.
    """
    n = len(words)
    forms, upos = [w[0] for w in words], [w[1] for w in words]
    heads = [w[2] for w in words] if len(words[0]) == 3 else [0] + [1] * (n - 1)
    return Sentence(
        sent_id=sent_id,
        text=None,
        forms=np.array(forms),
        lemmas=np.array(forms),
        upos=np.array(upos),
        xpos=np.array(["_"] * n),
        feats=tuple({} for _ in range(n)),
        heads=np.array(heads, dtype=np.int64),
        deprel=np.array(deprel or ["root" if h == 0 else "dep" for h in heads]),
        path=Path("hand-built"),
        line=1,
    )


# Words that state a verdict: the chapters' prose must glue them, never type them.
VERDICT_WORDS = re.compile(
    r"\b(reproduced|inconclusive|underpowered|holds|does not hold|sufficient|insufficient|"
    r"unstable|certainly|confirms|confirmed|refutes|refuted)\b",
    re.IGNORECASE,
)
GLUE_ROLE = re.compile(r"\{glue:[a-z]+\}`[^`]*`")


def markdown(notebook: str) -> str:
    """The markdown cells of a Jupytext percent notebook, joined, one line per prose line."""
    cells, current = [], None
    for line in (REPO / "notebooks" / notebook).read_text().splitlines():
        if line.startswith("# %%"):
            current = [] if "[markdown]" in line else None
            if current is not None:
                cells.append(current)
        elif current is not None:
            current.append(line[2:] if line.startswith("# ") else line.lstrip("#"))
    return "\n".join("\n".join(cell) for cell in cells)


def typed_verdict_words(notebook: str) -> list[str]:
    """Verdict words typed into a notebook's prose rather than glued."""
    return VERDICT_WORDS.findall(GLUE_ROLE.sub("", markdown(notebook)))


def missing_verdict_glue(notebook: str, claims) -> list[tuple[str, str]]:
    """What the "## Verdicts" section of ``notebook`` fails to glue, as (claim id, field).

    Each claim needs its bold "**<text>: <verdict>.**" line and its text, power, SESOI, SESOI
    reason and reading; the glue keys are ``ch<NN>_<claim key>_<field>``.
    """
    prefix = f"ch{notebook[:2]}"
    verdicts = " ".join(markdown(notebook).split("## Verdicts", 1)[1].split())
    missing = []
    for claim in claims:
        if f"**{claim.text}: {{glue:text}}`{prefix}_{claim.key}_verdict`.**" not in verdicts:
            missing.append((claim.id, "verdict"))
        for field in ("text", "power:.2f", "sesoi", "sesoi_reason", "reading"):
            if f"`{prefix}_{claim.key}_{field}`" not in verdicts:
                missing.append((claim.id, field))
    return missing


def pytest_terminal_summary(terminalreporter) -> None:
    """Say in the summary whether the CUDA tests ran: without a GPU they are skipped, and a
    skipped device test must not pass for a tested one."""
    cuda = {
        outcome: [r for r in terminalreporter.stats.get(outcome, []) if "cuda" in r.keywords]
        for outcome in ("passed", "failed", "skipped")
    }
    if not any(cuda.values()):
        return
    if torch.cuda.is_available():
        ran = len(cuda["passed"]) + len(cuda["failed"])
        line = f"CUDA tests: run on {torch.cuda.get_device_name(0)} ({ran} tests)"
    else:
        line = f"CUDA tests: not run, no GPU ({len(cuda['skipped'])} skipped)"
    terminalreporter.write_sep("-", line, yellow=not torch.cuda.is_available())
