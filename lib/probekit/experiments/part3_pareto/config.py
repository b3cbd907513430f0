"""Typed configurations of Part III's chapters (Pimentel et al. 2020).

Each is built once from a chapter's parameters with
:meth:`~probekit.experiments.config.ChapterConfig.from_parameters`:

- :class:`ToyTasksConfig`: the lookup baselines and label entropies (§7.1, appendix B);
- :class:`ParetoSetupConfig`: what the probing chapters share (§6: sentence samples, the four
  representations, the training options), with on top of it
  :class:`ParametricConfig` (linear probes, §4.1 and §6.1),
  :class:`MemorisationSetupConfig` (random MLPs and shuffled controls, §5 and §6.2) and its
  two chapters, :class:`MemorisationConfig` (POSL and DAL) and :class:`ParsingConfig`
  (dependency parsing, §7.2).

Lists of names and the values that would otherwise fail only after the representations are
built are checked when a configuration is made, so a bad parameter fails at once.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from probekit.errors import ParameterError
from probekit.experiments.config import ChapterConfig, require_seeds
from probekit.experiments.part3_pareto.layer_choice import SELECTION_MLP
from probekit.experiments.part3_pareto.memorisation import CONDITIONS
from probekit.experiments.part3_pareto.parametric import FAMILIES, alpha_values
from probekit.experiments.part3_pareto.representations import (
    REPRESENTATIONS,
    TASKS,
    check_names,
)
from probekit.methods.pareto.architectures import sample_mlp_configs
from probekit.probes.biaffine import PARSE_OPTIONS, PARSER_BETAS, PARSER_CLIP
from probekit.probes.mlp_stack import MLPConfig
from probekit.probes.training import TrainOptions


def _at_least(name: str, value: float, low: float) -> None:
    if value < low:
        raise ParameterError(name, f"must be >= {low}, got {value}")


def _share(name: str, value: float) -> None:
    if not 0 < value <= 1:
        raise ParameterError(name, f"must lie in (0, 1], got {value}")


# Fewest bootstrap resamples of test sentences for a claim's 90 % percentile interval.
MIN_BOOT = 100


def _resamples(value: int) -> None:
    if value < MIN_BOOT:
        raise ParameterError(
            "n_boot", f"must be >= {MIN_BOOT}, got {value}", "a claim's interval needs resamples"
        )


@dataclass(frozen=True)
class ToyTasksConfig(ChapterConfig):
    """The lookup and entropy chapter (Pimentel et al. 2020, §7.1 and appendix B).

    The ``treebank``, the training-sentence counts of the lookups fitted on samples
    (``lookup_sizes``, 0 = the whole split) and the ``sample_seed`` of those samples.
    """

    treebank: str
    lookup_sizes: list[int]
    sample_seed: int

    def __post_init__(self) -> None:
        """Check the parameters before anything is loaded (ParameterError naming the one)."""
        if not self.lookup_sizes or min(self.lookup_sizes) < 0:
            raise ParameterError(
                "lookup_sizes",
                f"got {self.lookup_sizes}",
                "a non-empty list of sentence counts >= 0 (0 means the whole split)",
            )


def _directory(name: str, value: str) -> None:
    if not value.strip():
        raise ParameterError(name, "got an empty path", "a directory")


def _train_options(config: object) -> TrainOptions:
    """The training options a chapter's ``batch_size`` ... ``schedule`` parameters name."""
    names = ("batch_size", "lr", "eval_every", "patience", "max_steps", "schedule")
    return TrainOptions(**{name: getattr(config, name) for name in names})


def parser_options(options: TrainOptions) -> TrainOptions:
    """``options`` with the parsers' optimiser and smaller evaluation batches.

    Adam's betas and gradient clipping of Dozat & Manning 2017
    (:data:`~probekit.probes.biaffine.PARSER_BETAS`, :data:`~probekit.probes.biaffine.
    PARSER_CLIP`); the evaluation batch size of :data:`probekit.probes.biaffine.PARSE_OPTIONS`.
    """
    return replace(
        options,
        eval_batch_size=PARSE_OPTIONS.eval_batch_size,
        betas=PARSER_BETAS,
        clip=PARSER_CLIP,
    )


@dataclass(frozen=True)
class LayerChoiceConfig(ChapterConfig):
    """The selection pass of Part III's contextual layer (chapter 31; :mod:`.layer_choice`).

    The ``treebank``, ``model`` and ``pooling``; ``layer`` (None: choose it, else no pass); the
    ``n_train`` and ``n_dev`` sentences sampled with ``sample_seed`` (0 = all); the parsers'
    ``seed`` and training options, as chapter 34's.
    """

    treebank: str
    model: str
    pooling: str
    layer: int | None
    n_train: int
    n_dev: int
    sample_seed: int
    seed: int
    batch_size: int
    lr: float
    eval_every: int
    patience: int
    max_steps: int
    schedule: str

    def __post_init__(self) -> None:
        """Check the parameters before anything is loaded (ParameterError naming the one)."""
        for name in ("n_train", "n_dev"):
            _at_least(name, getattr(self, name), 0)
        self.train_options()  # checks batch_size, lr, eval_every, patience, max_steps, schedule

    def train_options(self) -> TrainOptions:
        """The selection parsers' options: chapter 34's (:func:`parser_options`)."""
        return parser_options(_train_options(self))


@dataclass(frozen=True)
class LeadComparisonConfig(ChapterConfig):
    """The comparison of contextual leads across tasks (Pimentel et al. 2020, §7.2; chapter 35).

    ``results_dir``: where chapters 33 and 34 saved their results, whose leads it reads.
    """

    results_dir: str

    def __post_init__(self) -> None:
        """Check the parameters before anything is read (ParameterError naming the one)."""
        _directory("results_dir", self.results_dir)


@dataclass(frozen=True)
class ParetoSetupConfig(ChapterConfig):
    """What every probing chapter of Part III reads (Pimentel et al. 2020, §6).

    The treebank and its seeded samples, the contextual model's layer (None: the layer chapter
    31 chose on development data, read from its saved results in ``results_dir``;
    :mod:`.layer_choice`) and pooling, the representations, the sizes of the type-level vectors,
    the ``seed`` of the random word vectors and of the resampling draws, the training ``seeds``
    (each a replicate of the whole training protocol: its own architectures, initialisation,
    batch order and shuffles; at least two, for the claims' seed variance) and the training
    options, with the learning-rate ``schedule`` (:data:`probekit.probes.training.SCHEDULES`).
    """

    treebank: str
    model: str
    layer: int | None
    pooling: str
    representations: list[str]
    n_train: int
    n_dev: int
    n_test: int
    sample_seed: int
    type_dim: int
    fasttext_dim: int
    fasttext_epochs: int
    fasttext_path: str
    seed: int
    seeds: list[int]
    batch_size: int
    lr: float
    eval_every: int
    patience: int
    max_steps: int
    schedule: str
    results_dir: str

    def __post_init__(self) -> None:
        """Check the parameters before anything is loaded (ParameterError naming the one)."""
        _directory("results_dir", self.results_dir)
        check_names("representations", self.representations, REPRESENTATIONS)
        for name in ("n_train", "n_dev", "n_test"):
            _at_least(name, getattr(self, name), 0)
        for name in ("type_dim", "fasttext_dim", "fasttext_epochs"):
            _at_least(name, getattr(self, name), 1)
        require_seeds(self.seeds, "Part III's claims")
        if len(set(self.seeds)) != len(self.seeds):
            raise ParameterError("seeds", f"lists a seed twice: {self.seeds}")
        self.train_options()  # checks batch_size, lr, eval_every, patience and max_steps

    def train_options(self) -> TrainOptions:
        """The probes' training options (Adam, early stopping on dev, the schedule)."""
        return _train_options(self)

    def architectures(self, seed: int) -> list[MLPConfig]:
        """The random MLP architectures of §6.2 that training seed ``seed`` trains (none here)."""
        return []

    def fully_shuffled(self) -> bool:
        """Whether the chapter runs the fully-shuffled control of §5 (not here)."""
        return False


@dataclass(frozen=True)
class ParametricConfig(ParetoSetupConfig):
    """Linear probes under the nuclear norm and the rank (Pimentel et al. 2020, §4.1 and §6.1).

    The ``tasks`` and probe ``families``, ``n_probes`` per setting with nuclear-norm weights up to
    ``alpha_max``, the hypervolume's cap ``max_norm``, the share of the cap (``simple_fraction``)
    up to which a probe counts as simple, and ``n_boot`` resamples of test sentences for the
    interval of claim III.3.
    """

    tasks: list[str]
    families: list[str]
    n_probes: int
    alpha_max: float
    max_norm: float
    simple_fraction: float
    n_boot: int

    def __post_init__(self) -> None:
        """Check the parameters before anything is loaded (ParameterError naming the one)."""
        super().__post_init__()
        check_names("tasks", self.tasks, TASKS)
        check_names("families", self.families, FAMILIES)
        _at_least("n_probes", self.n_probes, 1)
        if "nuclear" in self.families:
            alpha_values(self.n_probes, high=self.alpha_max)  # checks the nuclear-norm grid
        if not self.max_norm > 0:
            raise ParameterError("max_norm", f"must be > 0, got {self.max_norm}")
        _share("simple_fraction", self.simple_fraction)
        _resamples(self.n_boot)


@dataclass(frozen=True)
class MemorisationSetupConfig(ParetoSetupConfig):
    """What the two memorisation chapters share (Pimentel et al. 2020, §5 and §6.2).

    The shuffled ``controls``, ``n_configs`` random MLP architectures no wider than ``max_hidden``,
    the ``n_memorise`` training items (0 = all) each control memorises for ``memorise_steps``
    updates, and the memorisation up to which a probe counts as simple (``simple_budget``).
    """

    controls: list[str]
    n_configs: int
    max_hidden: int
    n_memorise: int
    memorise_steps: int
    simple_budget: float

    def __post_init__(self) -> None:
        """Check the parameters before anything is loaded (ParameterError naming the one)."""
        super().__post_init__()
        check_names("controls", self.controls, CONDITIONS[1:])
        _at_least("n_configs", self.n_configs, 0)
        self.architectures(self.seeds[0])  # checks max_hidden
        _at_least("n_memorise", self.n_memorise, 0)
        _at_least("memorise_steps", self.memorise_steps, 1)
        _share("simple_budget", self.simple_budget)

    def architectures(self, seed: int) -> list[MLPConfig]:
        """The random MLP architectures of §6.2 that training seed ``seed`` trains.

        Drawn by :func:`~probekit.methods.pareto.architectures.sample_mlp_configs`: every seed
        replicates the paper's random search with draws of its own.
        """
        return sample_mlp_configs(self.n_configs, seed=seed, max_hidden=self.max_hidden)

    def fully_shuffled(self) -> bool:
        """Whether the fully-shuffled control of §5 is among the controls."""
        return "fully_shuffled" in self.controls

    def conditions(self, seed: int) -> list[str]:
        """What training seed ``seed``'s architectures train on: gold labels and every control."""
        return ["normal", *self.controls]

    @property
    def complexity_control(self) -> str:
        """The control whose memorisation is the complexity axis.

        Label-shuffled when it runs, else fully shuffled.
        """
        return "label_shuffled" if "label_shuffled" in self.controls else "fully_shuffled"


@dataclass(frozen=True)
class MemorisationConfig(MemorisationSetupConfig):
    """Random MLPs on POSL and DAL under memorisation complexity (Pimentel et al. 2020).

    §5 and §6.2: the controls' set-up, the ``tasks`` and ``n_boot`` resamples of test sentences
    for the intervals of claims III.4 and III.5.
    """

    tasks: list[str]
    n_boot: int

    def __post_init__(self) -> None:
        """Check the parameters before anything is loaded (ParameterError naming the one)."""
        super().__post_init__()
        check_names("tasks", self.tasks, TASKS)
        _resamples(self.n_boot)


@dataclass(frozen=True)
class ParsingConfig(MemorisationSetupConfig):
    """Dependency parsing as a probing task (Pimentel et al. 2020, §7.2 and appendix C).

    MLP parsers under memorisation complexity (the controls train beside their parsers, so
    ``memorise_steps`` may not exceed ``max_steps``), with, when ``reference_parser``, the
    selection pass's parser beside each seed's random draws; and, when ``linear``, ``n_probes`` linear
    parsers with nuclear-norm weights up to ``alpha_max``, capped at ``max_norm`` and simple up to
    ``simple_fraction`` of it; ``n_boot`` resamples of test sentences for the interval of the
    contextual lead (claim III.5), and the ``claim_seeds`` with which the two parsers that claim
    III.6 compares are trained again (at least two: with one seed per parser the seed variance
    would be invisible and the interval too narrow, Reimers & Gurevych 2017).
    """

    reference_parser: bool
    linear: bool
    n_probes: int
    alpha_max: float
    max_norm: float
    simple_fraction: float
    n_boot: int
    claim_seeds: list[int]

    def architectures(self, seed: int) -> list[MLPConfig]:
        """Seed ``seed``'s random MLP architectures (§6.2), then the reference parser.

        The reference (:data:`~.layer_choice.SELECTION_MLP`, one hidden layer of 256 per view,
        the size of Dozat & Manning's arc MLPs) is trained when ``reference_parser``: a few
        random draws seldom include a parser of that size, and without one no frontier shows
        what the representation allows.
        """
        drawn = super().architectures(seed)
        return [*drawn, SELECTION_MLP] if self.reference_parser else drawn

    def conditions(self, seed: int) -> list[str]:
        """What training seed ``seed``'s parsers train on: gold heads and controls.

        Every seed runs the control whose memorisation is the complexity axis
        (:attr:`complexity_control`), which the claims read. The other control is a robustness
        figure no claim or frontier reads; it runs under the first seed only, where parsers
        are costly.
        """
        if seed == self.seeds[0]:
            return ["normal", *self.controls]
        return ["normal", self.complexity_control]

    def __post_init__(self) -> None:
        """Check the parameters before anything is loaded (ParameterError naming the one)."""
        super().__post_init__()
        if self.linear:
            alpha_values(self.n_probes, high=self.alpha_max)  # checks the nuclear-norm grid
        if not self.max_norm > 0:
            raise ParameterError("max_norm", f"must be > 0, got {self.max_norm}")
        _share("simple_fraction", self.simple_fraction)
        _resamples(self.n_boot)
        if self.memorise_steps > self.max_steps:
            raise ParameterError(
                "memorise_steps",
                f"{self.memorise_steps} is above max_steps ({self.max_steps})",
                "the controls train in their parsers' stacks, which stop at max_steps; set it "
                "to max_steps for the parsers' budget",
            )
        if len(set(self.claim_seeds)) < 2:
            raise ParameterError(
                "claim_seeds",
                f"got {self.claim_seeds}",
                "at least two distinct seeds: claim III.6 compares trained parsers, whose seed "
                "variance one seed each cannot show",
            )

    def train_options(self) -> TrainOptions:
        """The training options with the parsers' optimiser (:func:`parser_options`)."""
        return parser_options(super().train_options())
