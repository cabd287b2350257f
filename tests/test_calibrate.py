"""How the corrector's keep-unchanged margin is chosen from validation rows."""

from __future__ import annotations

from models.corrector.calibrate import choose_setting


def _rows():
    intact = [
        {
            "best_ok": False,
            "identity_ok": True,
            "gap": round(0.1 * i, 2),
            "missing": 0,
            "intact": True,
        }
        for i in range(10)
    ]
    degraded = [
        {
            "best_ok": True,
            "identity_ok": False,
            "gap": round(0.52 + 0.1 * i, 2),
            "missing": 0,
            "intact": False,
        }
        for i in range(10)
    ]
    return intact + degraded


def test_the_unchanged_floor_is_met_with_the_least_loss_on_degraded_input():
    chosen, curve, key = choose_setting(_rows(), min_unchanged=0.95)
    assert key == "exact_degraded"
    assert chosen["intact_unchanged"] == 1.0
    assert chosen["margin"] == 0.9  # 0.95 would keep one more degraded input unchanged
    assert chosen["exact_degraded"] == 0.6
    assert len(curve) > 100


def test_without_a_floor_degraded_accuracy_wins_and_ties_keep_more_inputs():
    chosen, _, _ = choose_setting(_rows(), min_unchanged=0.0)
    assert chosen["exact_degraded"] == 1.0
    assert chosen["margin"] == 0.5  # the largest margin that loses no degraded input
    assert chosen["intact_unchanged"] == 0.6


def test_differences_within_noise_are_ties_won_by_the_safer_setting():
    rows = (
        _rows()
        + [{"best_ok": True, "identity_ok": False, "gap": 0.3, "missing": 1, "intact": False}] * 2
    )
    strict, _, _ = choose_setting(rows, min_unchanged=0.0, tolerance=0.0)
    loose, _, _ = choose_setting(rows, min_unchanged=0.0, tolerance=0.2)
    assert strict["exact_degraded"] == 1.0 and strict["margin"] == 0.25
    assert loose["intact_unchanged"] > strict["intact_unchanged"]


def test_an_unreachable_floor_falls_back_to_the_balanced_rate():
    # The model rewrites every intact input and finds the input itself far less likely.
    rows = [dict(r, gap=5.0) if r["intact"] else r for r in _rows()]
    chosen, _, key = choose_setting(rows, min_unchanged=0.95)
    assert key == "balanced"
    assert chosen["margin"] < 0.52  # keeping degraded inputs unchanged would cost accuracy
