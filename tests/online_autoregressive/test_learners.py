"""Learners and adversaries: SOA is optimal, halving within log2 N, CoTSOA within Ldim(F) for every M."""

import numpy as np
import pytest

from jaxpapers.online_autoregressive import adversaries as A
from jaxpapers.online_autoregressive import generators as g
from jaxpapers.online_autoregressive import induced
from jaxpapers.online_autoregressive import learners as Ln
from jaxpapers.online_autoregressive import littlestone as L


@pytest.mark.parametrize("seed", range(4))
def test_soa_vs_optimal_adversary_equals_ldim(seed):
    rng = np.random.default_rng(seed)
    mat = induced.dedupe(rng.random((int(rng.integers(4, 20)), 6)) < 0.5)[0]
    solver = L.LdimSolver(mat)
    value = solver.value()
    assert A.play_game(Ln.SOA(mat, solver), A.OptimalAdversary(solver), 50) == value
    # halving against the same adversary: at least the optimum, at most log2 N
    h = A.play_game(Ln.Halving(induced.MatrixOracle(mat)), A.OptimalAdversary(solver), 50)
    assert value <= h <= np.log2(mat.shape[0])


def test_latch_games_match_the_closed_form():
    for m in (1, 3, 4, 8):
        r = 4 * m + 8
        cls = g.latch_class(np.arange(r), r)
        mat = induced.e2e_matrix(cls, np.arange(r), m)
        solver = L.LdimSolver(mat)
        want = 1 + int(np.floor(np.log2(m)))
        assert A.play_game(Ln.SOA(mat, solver), A.LatchAdversary(cls, m, "e2e"), 100) == want
        assert (
            A.play_game(Ln.ZeroThenHalving(induced.ColumnOracle(cls, m)), A.LatchAdversary(cls, m, "e2e"), 100) == want
        )
        assert A.play_game(Ln.CoTSOA(cls, m), A.LatchAdversary(cls, m, "cot"), 100) == 1


def test_latch_adversary_forces_mistakes_on_a_learner_that_says_one():
    """Against a learner that predicts 1 on fresh windows the adversary keeps answering 0 (still realisable)."""

    class AlwaysOne:
        feedback = "e2e"

        def predict(self, x):
            return 1

        def update(self, x, y):
            pass

    m, r = 4, 24
    cls = g.latch_class(np.arange(r), r)
    adv = A.LatchAdversary(cls, m, "e2e")
    assert A.play_game(AlwaysOne(), adv, 100) >= 1 + 2
    assert adv.cand.any()  # some k is consistent with every answer


def test_cotsoa_does_not_peek_and_feeds_chains_in_order():
    cls = g.ltf_class(3)
    m = 4
    learner = Ln.CoTSOA(cls, m)
    v_before = learner.v
    first = learner.rollout(5)
    assert learner.rollout(5) == first and learner.v == v_before  # predicting changes nothing
    ch = induced.chains(cls, np.arange(8), m)
    target = 37
    learner.update_chain(5, ch[target, 5])
    consistent = np.all(ch[:, 5] == ch[target, 5], axis=1)  # rows whose whole chain matches
    np.testing.assert_array_equal(learner.mask, consistent)


@pytest.mark.parametrize("m", [1, 2, 4, 8])
def test_cotsoa_mistakes_at_most_ldim_f(m):
    rng = np.random.default_rng(m)
    full = g.ltf_class(3)
    cls = full.subset(rng.choice(full.n, 24, replace=False))
    bound = L.ldim(cls.table)
    codes, last = induced.chain_codes(cls, np.arange(8), m)
    game = L.CoTGame(codes, last)
    assert A.play_game(Ln.CoTSOA(cls, m), A.OptimalCoTAdversary(game, cls, np.arange(8), m), 100) <= bound
    assert game.value() <= bound
    for seed in range(3):
        r = np.random.default_rng(seed)
        adv = A.RandomAdversary(cls, m, int(r.integers(cls.n)), np.arange(8), r, "cot")
        assert A.play_game(Ln.CoTSOA(cls, m), adv, 60) <= bound
        assert A.play_game(Ln.CoTHalving(cls, m), adv, 60) <= np.log2(cls.n)


def test_optimal_cot_adversary_forces_the_game_value_on_cotsoa_latch():
    m, r = 2, 10
    cls = g.latch_class(np.arange(r), r)
    codes, last = induced.chain_codes(cls, np.arange(r), m)
    game = L.CoTGame(codes, last)
    assert game.value() == 1
    assert A.play_game(Ln.CoTSOA(cls, m), A.OptimalCoTAdversary(game, cls, np.arange(r), m), 50) == 1


def test_bad_inputs():
    with pytest.raises(ValueError, match="latch class"):
        A.LatchAdversary(g.ltf_class(2), 2)
    with pytest.raises(Exception, match="feedback='both'"):
        A.LatchAdversary(g.latch_class([0, 1], 4), 2, "both")


def test_latch_game_continued_on_random_prompts_tells_a_broken_cot_learner():
    """O2's check: the CoT latch adversary stops after one mistake for any learner (its chain pins k); played on
    with random prompts against the revealed k, CoTSOA stays at 1 while a learner whose chain update never
    advances the context (it learns the wrong contexts) keeps paying."""

    class StuckContext(Ln.CoTSOA):
        def update_chain(self, x, chain):
            v, cols = self.v, self.cols
            for tok in np.asarray(chain, dtype=bool).tolist():
                a = v & cols[int(x)]
                v = a if tok else v ^ a
            self.v = v

    m, r = 4, 24
    cls, prompts = g.latch_class(np.arange(r), r), np.arange(r)
    totals = {}
    for name, learner_cls in (("cot_soa", Ln.CoTSOA), ("stuck", StuckContext)):
        learner, adv = learner_cls(cls, m), A.LatchAdversary(cls, m, "cot")
        first = A.play_game(learner, adv, 4 * m + 64)
        target = int(np.flatnonzero(adv.cand)[0])
        more = A.RandomAdversary(cls, m, target, prompts, np.random.default_rng(0), "cot")
        totals[name] = (first, first + A.play_game(learner, more, 100))
    assert totals["cot_soa"] == (1, 1)
    assert totals["stuck"][0] == 1 and totals["stuck"][1] > 1, totals
