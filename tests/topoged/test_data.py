"""The snapshot builder, edge types by hand, the generators' type mix, and every loader on tiny files."""

import numpy as np
import pytest

from jaxpapers.core.errors import ConfigError
from jaxpapers.topoged.config import HubExchangeConfig, PaChurnConfig
from jaxpapers.topoged.data.events import EventStream, snapshot_from_edges, to_snapshots
from jaxpapers.topoged.data.loaders import (
    load_dyglib,
    load_erc20_csv,
    load_jodie_csv,
    load_reddit_hyperlinks_tsv,
    load_snap_txt,
    load_tgb_csv,
)
from jaxpapers.topoged.data.synthetic import hub_exchange, pa_churn
from jaxpapers.topoged.edge_types import NN, ON, OO_BANK, OO_NOBANK, classify, count_vector, type_mix

DAY = 86400.0


def test_snapshots_contiguous_with_empty_days_kept():
    s = EventStream(np.array([0, 1, 2]), np.array([1, 0, 3]), np.array([0.0, 10.0, 3 * DAY + 5]))
    snaps = to_snapshots(s, "1D")
    assert len(snaps) == 4 and [x.n_edges for x in snaps] == [1, 0, 0, 1]
    assert len(to_snapshots(s, 3)) == 3
    with pytest.raises(ConfigError, match="freq"):
        to_snapshots(s, "2D")


def test_edge_types_by_hand():
    g0 = snapshot_from_edges(np.array([0, 1]), np.array([1, 2]))
    g1 = snapshot_from_edges(np.array([0, 0, 1, 5, 5]), np.array([1, 2, 5, 6, 1]))  # 0-1 bank, 0-2 nobank
    is_new, types = classify([g0, g1], k=5, history="all")
    t = dict(zip(map(tuple, g1.edges_global().tolist()), types[1].tolist(), strict=True))
    assert t == {(0, 1): OO_BANK, (0, 2): OO_NOBANK, (1, 5): ON, (5, 6): NN}
    c = count_vector(is_new[1], types[1])
    assert (c.n_old, c.n_new, c.e_oobank, c.e_nn, c.e_on, c.e_oonobank) == (3, 2, 1, 1, 1, 1)


def test_history_window_makes_long_absent_nodes_new():
    gs = [snapshot_from_edges(np.array([0]), np.array([1]))] + [snapshot_from_edges(np.array([2]), np.array([3]))] * 3
    gs.append(snapshot_from_edges(np.array([0]), np.array([1])))
    new_all, _ = classify(gs, k=2, history="all")
    new_win, _ = classify(gs, k=2, history="window")
    assert not new_all[-1].any() and new_win[-1].all()
    with pytest.raises(ConfigError, match="history"):
        classify(gs, history="last")


def test_pa_churn_mix_inside_table2_ranges():
    mix = type_mix(to_snapshots(pa_churn(PaChurnConfig(), 0), "1D"))
    assert 20 <= mix["oo_bank"] <= 50 and 5 <= mix["oo_nobank"] <= 40
    assert 10 <= mix["on"] <= 70 and 2 <= mix["nn"] <= 15
    assert 90 <= mix["nodes"] <= 120


def test_hub_exchange_is_old_new_heavy():
    mix = type_mix(to_snapshots(hub_exchange(HubExchangeConfig(), 0), "1D"))
    assert mix["on"] >= 40


def test_loaders_on_tiny_files(tmp_path):
    p = tmp_path / "college.txt"
    p.write_text("# c\n1 2 0\n2 3 90000\n")
    s, m = load_snap_txt(p)
    assert len(s) == 2 and m == {"1": 0, "2": 1, "3": 2} and len(to_snapshots(s)) == 2
    p = tmp_path / "reddit.tsv"
    p.write_text("SOURCE_SUBREDDIT\tTARGET_SUBREDDIT\tPOST_ID\tTIMESTAMP\na\tb\tx\t2014-01-01 10:00:00\n"
                 "b\tc\ty\t2015-01-02 00:00:00\n")
    s, _ = load_reddit_hyperlinks_tsv(p, end="2014-06-01")
    assert len(s) == 1
    p = tmp_path / "wikipedia.csv"
    p.write_text("user_id,item_id,timestamp,state_label,f1\n0,0,1.0,0,0.5\n1,0,2.0,0,0.1\n")
    s, m = load_jodie_csv(p)
    assert "item:0" in m and len(m) == 3
    p = tmp_path / "tgbl-wiki_edgelist.csv"
    p.write_text("src,dst,ts\n5,7,10\n7,9,20\n")
    s, _ = load_tgb_csv(p)
    np.testing.assert_array_equal(s.t, [10.0, 20.0])
    p = tmp_path / "ml_wiki.csv"
    p.write_text(",u,i,ts,label,idx\n0,1,2,3.0,0,1\n1,2,4,5.0,0,2\n")
    s, m = load_dyglib(p)
    assert len(s) == 2 and len(m) == 3
    p = tmp_path / "token.csv"
    p.write_text("from,to,date,value\n0xa,0xb,2018-01-01,3\n0xb,0xc,1514851200,1\n")
    s, _ = load_erc20_csv(p)
    assert len(to_snapshots(s)) == 2


@pytest.mark.parametrize("loader", [load_snap_txt, load_tgb_csv, load_erc20_csv, load_dyglib])
def test_loaders_raise_clear_errors(tmp_path, loader):
    with pytest.raises(ConfigError, match="path"):
        loader(tmp_path / "missing.csv")
    bad = tmp_path / "bad.csv"
    bad.write_text("x y\n")
    with pytest.raises(ConfigError):
        loader(bad)
