"""Lyra's one training loop, shared by the NLI model, the verifier, the LoRA adapters and the
rerankers: AdamW, a linear warm-up/decay schedule, gradient clipping, a smoothed loss, an
optional time box and stop request. What differs between models (the batches, the loss, the
optimiser's settings, what to report) comes in as arguments.

Seeding stays with the caller: the seed must be set before the model is built (a new
classification head draws from torch's generator), which happens before the loop starts.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Literal, TypeVar

from pydantic import BaseModel, Field

if TYPE_CHECKING:
    import torch

B = TypeVar("B")
T = TypeVar("T")


class TrainingStopped(RuntimeError):
    """The caller's ``should_stop`` said to stop; the model is part-trained and should be dropped."""


class OptimiserSettings(BaseModel):
    """AdamW and its learning-rate schedule.

    ``schedule``: ``linear`` rises from 0 over ``warmup_steps`` then falls linearly to 0 at the last
    step (transformers' ``get_linear_schedule_with_warmup``); ``ramped`` starts at
    1/``warmup_steps`` of the rate and multiplies the ramp with the linear decay from the first step.
    """

    lr: float
    weight_decay: float = 0.0
    no_decay: tuple[str, ...] = Field((), description="parameter-name endings trained without weight decay")
    warmup_steps: int = 0
    schedule: Literal["linear", "ramped"] = "linear"


class LoopState(BaseModel):
    """Where the loop is after a step, handed to ``on_step``."""

    step: int
    total_steps: int
    epoch: int
    items_done: int
    started: float  # time.perf_counter() when the loop started
    loss: float
    running_loss: float
    learning_rate: float

    def elapsed(self) -> float:
        return time.perf_counter() - self.started


class LoopResult(BaseModel):
    """What a run of :func:`train_loop` did."""

    steps: int
    items: int
    epochs_run: int  # epochs completed (a time box may cut the last one short)
    seconds: float
    running_loss: float
    stopped_by_time: bool = False
    losses: list[float] = Field(default_factory=list)  # every step's loss, in order


def shuffled_epochs(
    items: Sequence[T], batch_size: int, epochs: int, seed: int
) -> Iterator[list[Sequence[T]]]:
    """``epochs`` lists of consecutive batches, each epoch a fresh shuffle drawn from one seeded
    generator; an epoch is cut only when the loop reaches it."""
    rng = random.Random(seed)
    for _ in range(epochs):
        order = list(items)
        rng.shuffle(order)
        yield [order[start : start + batch_size] for start in range(0, len(order), batch_size)]


def _lr_factor(settings: OptimiserSettings, total: int) -> Callable[[int], float]:
    warmup = settings.warmup_steps
    if settings.schedule == "ramped":
        return lambda step: min(1.0, (step + 1) / warmup) * max(0.0, (total - step) / max(total - warmup, 1))

    def linear(step: int) -> float:
        if step < warmup:
            return float(step) / float(max(1, warmup))
        return max(0.0, float(total - step) / float(max(1, total - warmup)))

    return linear


def _optimiser(model: torch.nn.Module, settings: OptimiserSettings) -> torch.optim.Optimizer:
    import torch

    named = [(n, p) for n, p in model.named_parameters() if p.requires_grad]  # frozen (LoRA) weights stay out
    if not settings.no_decay:
        return torch.optim.AdamW([p for _, p in named], lr=settings.lr, weight_decay=settings.weight_decay)
    groups = [
        {
            "params": [p for n, p in named if not n.endswith(settings.no_decay)],
            "weight_decay": settings.weight_decay,
        },
        {"params": [p for n, p in named if n.endswith(settings.no_decay)], "weight_decay": 0.0},
    ]
    return torch.optim.AdamW(groups, lr=settings.lr)


def train_loop(
    model: torch.nn.Module,
    epochs: Iterable[Iterable[B]],
    batch_loss: Callable[[B], torch.Tensor],
    optimiser: OptimiserSettings,
    *,
    total_steps: int,
    batch_items: Callable[[B], int] = len,  # items in a batch, for the count in LoopState
    grad_clip: float = 1.0,
    smoothing: float = 0.98,
    max_seconds: float | None = None,
    should_stop: Callable[[], bool] | None = None,
    on_step: Callable[[LoopState], None] | None = None,
) -> LoopResult:
    """Train ``model`` on each epoch's batches in order; ``batch_loss(batch)`` returns the loss.

    Each step: backward, clip gradients to ``grad_clip``, optimiser and schedule step, zero the
    gradients. ``running_loss`` is an exponential moving average (weight ``smoothing`` on the past,
    the first step's loss as its start). Before every batch ``should_stop`` may raise
    :class:`TrainingStopped`; past ``max_seconds`` the loop ends early with ``stopped_by_time``.
    The model is left in eval mode.
    """
    import torch

    optimizer = _optimiser(model, optimiser)
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, _lr_factor(optimiser, total_steps))
    model.train()
    started = time.perf_counter()
    step = items = epochs_run = 0
    running, stopped_by_time, losses = 0.0, False, []
    for epoch, batches in enumerate(epochs):
        for batch in batches:
            if should_stop and should_stop():
                raise TrainingStopped("training stopped on request")
            if max_seconds is not None and time.perf_counter() - started > max_seconds:
                stopped_by_time = True
                break
            loss = batch_loss(batch)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), grad_clip)
            optimizer.step()
            scheduler.step()
            optimizer.zero_grad(set_to_none=True)
            step += 1
            items += batch_items(batch)
            value = loss.item()
            losses.append(value)
            running = value if step == 1 else smoothing * running + (1 - smoothing) * value
            if on_step:
                on_step(
                    LoopState(
                        step=step,
                        total_steps=total_steps,
                        epoch=epoch,
                        items_done=items,
                        started=started,
                        loss=value,
                        running_loss=running,
                        learning_rate=scheduler.get_last_lr()[0],
                    )
                )
        if stopped_by_time:
            break
        epochs_run += 1
    model.eval()
    return LoopResult(
        steps=step,
        items=items,
        epochs_run=epochs_run,
        seconds=time.perf_counter() - started,
        running_loss=running,
        stopped_by_time=stopped_by_time,
        losses=losses,
    )
