"""The one training loop the NLI model, the verifier, the adapters and the rerankers share: its
schedules, its seeded epochs, its time box and stop request, and what it leaves out of training."""

from __future__ import annotations

import pytest
import torch

from lyra_training.loop import LoopState, OptimiserSettings, TrainingStopped, shuffled_epochs, train_loop


def _toy(seed: int = 0) -> tuple[torch.nn.Module, list[tuple[float, float]]]:
    torch.manual_seed(seed)
    model = torch.nn.Linear(1, 1)
    items = [(x / 10, 3 * x / 10 + 1) for x in range(20)]
    return model, items


def _loss(model: torch.nn.Module):
    def batch_loss(batch):
        x = torch.tensor([[a] for a, _ in batch])
        y = torch.tensor([[b] for _, b in batch])
        return torch.nn.functional.mse_loss(model(x), y)

    return batch_loss


def test_linear_schedule_is_transformers_warmup_then_decay():
    from transformers import get_linear_schedule_with_warmup

    total, warmup = 17, 3
    rates = {}
    for name in ("ours", "transformers"):
        model, items = _toy()
        if name == "ours":
            seen: list[float] = []
            train_loop(
                model,
                shuffled_epochs(items, 4, 4, seed=1),
                _loss(model),
                OptimiserSettings(lr=0.1, warmup_steps=warmup),
                total_steps=total,
                on_step=lambda s, seen=seen: seen.append(s.learning_rate),
            )
            rates[name] = seen[:total]
        else:
            opt = torch.optim.AdamW(model.parameters(), lr=0.1)
            schedule = get_linear_schedule_with_warmup(opt, warmup, total)
            seen = []
            for _ in range(total):
                opt.step()
                schedule.step()
                seen.append(schedule.get_last_lr()[0])
            rates[name] = seen
    assert rates["ours"] == pytest.approx(rates["transformers"], abs=1e-12)


def test_ramped_schedule_starts_above_zero_and_ends_at_zero():
    model, items = _toy()
    seen: list[float] = []
    train_loop(
        model,
        shuffled_epochs(items, 5, 2, seed=1),
        _loss(model),
        OptimiserSettings(lr=1.0, warmup_steps=2, schedule="ramped"),
        total_steps=8,
        on_step=lambda s: seen.append(s.learning_rate),
    )
    # after step k the factor for step k is min(1, (k+1)/2) * (8-k)/6
    assert seen == pytest.approx([min(1, (k + 1) / 2) * (8 - k) / 6 for k in range(1, 9)])


def test_same_seed_same_epochs_same_losses_and_every_epoch_reshuffled():
    items = list(range(10))
    first = list(shuffled_epochs(items, 3, 2, seed=7))
    assert first == list(shuffled_epochs(items, 3, 2, seed=7))
    assert first[0] != first[1] and sorted(sum(first[0], [])) == items
    assert [len(b) for b in first[0]] == [3, 3, 3, 1]

    runs = []
    for _ in range(2):
        model, data = _toy(seed=3)
        runs.append(
            train_loop(
                model,
                shuffled_epochs(data, 4, 3, seed=5),
                _loss(model),
                OptimiserSettings(lr=0.05, warmup_steps=1),
                total_steps=15,
            )
        )
    assert runs[0].losses == runs[1].losses
    result = runs[0]
    assert (result.steps, result.items, result.epochs_run, result.stopped_by_time) == (15, 60, 3, False)
    assert len(result.losses) == 15


def test_running_loss_is_the_smoothed_step_loss():
    model, items = _toy()
    states: list[LoopState] = []
    result = train_loop(
        model,
        shuffled_epochs(items, 5, 1, seed=1),
        _loss(model),
        OptimiserSettings(lr=0.01),
        total_steps=4,
        smoothing=0.9,
        on_step=states.append,
    )
    expected = result.losses[0]
    for loss in result.losses[1:]:
        expected = 0.9 * expected + 0.1 * loss
    assert result.running_loss == pytest.approx(expected)
    assert [s.step for s in states] == [1, 2, 3, 4] and [s.items_done for s in states] == [5, 10, 15, 20]


def test_time_box_ends_early_and_stop_request_raises():
    model, items = _toy()
    result = train_loop(
        model,
        shuffled_epochs(items, 5, 2, seed=1),
        _loss(model),
        OptimiserSettings(lr=0.01),
        total_steps=8,
        max_seconds=0.0,
    )
    assert (result.steps, result.epochs_run, result.stopped_by_time) == (0, 0, True)
    assert not model.training  # left in eval mode, as after a full run
    with pytest.raises(TrainingStopped):
        train_loop(
            model,
            shuffled_epochs(items, 5, 1, seed=1),
            _loss(model),
            OptimiserSettings(lr=0.01),
            total_steps=4,
            should_stop=lambda: True,
        )


def test_frozen_weights_stay_and_no_decay_parameters_are_not_decayed():
    model, items = _toy()
    model.bias.requires_grad_(False)
    bias = model.bias.detach().clone()
    train_loop(
        model, shuffled_epochs(items, 5, 1, seed=1), _loss(model), OptimiserSettings(lr=0.1), total_steps=4
    )
    assert torch.equal(model.bias, bias)

    # a zero loss leaves only weight decay: the weight shrinks, the exempt bias does not move
    model, items = _toy()
    weight, bias = model.weight.detach().clone(), model.bias.detach().clone()
    zero = lambda batch: (model(torch.zeros(1, 1)) * 0).sum()  # noqa: E731
    train_loop(
        model, [[items]], zero, OptimiserSettings(lr=0.1, weight_decay=0.5, no_decay=("bias",)), total_steps=1
    )
    assert torch.equal(model.bias, bias) and not torch.equal(model.weight, weight)
