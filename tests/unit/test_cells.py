"""List cells read back from DuckDB through pandas (numpy arrays, NA) and through fetchall (lists, None)."""

import duckdb
import numpy as np
import pytest

from lyra_core.cells import cell_list


def test_list_cells_from_duckdb_become_lists_whatever_the_reader():
    conn = duckdb.connect()
    conn.execute(
        "CREATE TABLE t (i INTEGER, ids VARCHAR[]); "
        "INSERT INTO t VALUES (1, ['s2:a', 'openalex:W1']), (2, ['s2:b']), (3, []), (4, NULL)"
    )
    frame = conn.execute("SELECT * FROM t ORDER BY i").df()
    assert isinstance(frame["ids"].iat[0], np.ndarray)  # why the helper exists: `array or []` raises
    expected = [["s2:a", "openalex:W1"], ["s2:b"], [], []]
    assert [cell_list(v) for v in frame["ids"]] == expected
    assert [cell_list(ids) for _, ids in conn.execute("SELECT * FROM t ORDER BY i").fetchall()] == expected


def test_a_string_is_one_item_and_a_stray_scalar_is_refused():
    assert cell_list("s2:a") == ["s2:a"] and cell_list(float("nan")) == [] and cell_list(("x",)) == ["x"]
    with pytest.raises(TypeError, match="expected a list cell"):
        cell_list(3)
