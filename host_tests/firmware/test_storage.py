"""storage / settings / gamelog against real files (tmp_path) and a fault-injecting fake fs
(harness/fakefs.py: power lost at any step, a full flash, FAT-like and littlefs-like)."""

import errno
import json
import os

import gamelog
import pytest
import settings
import storage
from hypothesis import given
from hypothesis import settings as hsettings
from hypothesis import strategies as st

from harness.fakefs import FS_MODELS, PowerLoss, new_fs

N_PRESETS = 17


def new_settings():
    s = settings.defaults()
    s["brightness"] = 1
    s["sound"] = False
    s["control"] = {"custom": {"mode": 0, "periods": [[5400, 40, 1, 30], [1800, 0, 1, 30]]}}
    return s


# ---------------------------------------------------------------- settings on real files


def test_missing_settings_give_defaults(tmp_path):
    assert settings.load(str(tmp_path), N_PRESETS) == (
        settings.defaults(),
        settings.DEFAULTS_MISSING,
    )


def test_settings_round_trip(tmp_path):
    root = str(tmp_path)
    assert settings.save(root, new_settings())
    assert settings.load(root, N_PRESETS) == (new_settings(), settings.OK)
    assert sorted(os.listdir(root)) == ["settings.json"]  # no tmp left behind


@pytest.mark.parametrize(
    "content",
    [b"{not json", b"", b"   ", b"\xff\xfe{}", b"[1, 2]", b"null", b"42", b'"text"', b"{}}"],
    ids=["syntax", "empty", "blank", "not-utf8", "list", "null", "number", "string", "extra"],
)
def test_corrupt_settings_give_defaults(tmp_path, content):
    (tmp_path / "settings.json").write_bytes(content)
    s, status = settings.load(str(tmp_path), N_PRESETS)
    assert (s, status) == (settings.defaults(), settings.DEFAULTS_CORRUPT)


def test_every_truncation_of_the_file_is_corrupt(tmp_path):
    root = str(tmp_path)
    settings.save(root, new_settings())
    whole = (tmp_path / "settings.json").read_bytes()
    for cut in range(len(whole)):
        (tmp_path / "settings.json").write_bytes(whole[:cut])
        assert settings.load(root, N_PRESETS) == (
            settings.defaults(),
            settings.DEFAULTS_CORRUPT,
        ), cut


def test_settings_path_is_a_directory(tmp_path):
    (tmp_path / "settings.json").mkdir()
    assert settings.load(str(tmp_path), N_PRESETS)[1] == settings.DEFAULTS_CORRUPT


def test_oversized_file_is_corrupt_not_a_memory_error(tmp_path):
    (tmp_path / "settings.json").write_text('{"sound": true, "pad": "%s"}' % ("x" * 20000))
    assert settings.load(str(tmp_path), N_PRESETS)[1] == settings.DEFAULTS_CORRUPT


def test_partly_invalid_settings_are_fixed_key_by_key(tmp_path):
    raw = new_settings()
    raw["brightness"] = True
    raw["low_time_s"] = 9999
    del raw["rules"]
    (tmp_path / "settings.json").write_text(json.dumps(raw))
    s, status = settings.load(str(tmp_path), N_PRESETS)
    assert status == settings.FIXED_INVALID
    want = new_settings()
    want["brightness"] = settings.defaults()["brightness"]
    want["low_time_s"] = 10
    assert s == want


def test_preset_index_beyond_the_table_is_fixed(tmp_path):
    raw = settings.defaults()
    raw["control"] = {"preset": N_PRESETS}
    (tmp_path / "settings.json").write_text(json.dumps(raw))
    assert settings.load(str(tmp_path), N_PRESETS) == (settings.defaults(), settings.FIXED_INVALID)


def test_unserializable_settings_are_not_saved(tmp_path):
    root = str(tmp_path)
    settings.save(root, new_settings())
    bad = new_settings()
    bad["sound"] = object()
    assert settings.save(root, bad) is False
    assert settings.load(root, N_PRESETS) == (new_settings(), settings.OK)


def test_partial_tmp_is_ignored_and_removed(tmp_path):
    root = str(tmp_path)
    settings.save(root, settings.defaults())
    text = json.dumps(new_settings())
    (tmp_path / "settings.json.tmp").write_text(text[: len(text) // 2])
    assert settings.load(root, N_PRESETS) == (settings.defaults(), settings.OK)
    assert sorted(os.listdir(root)) == ["settings.json"]


def test_whole_tmp_is_newer_and_renamed_into_place(tmp_path):
    root = str(tmp_path)
    settings.save(root, settings.defaults())
    (tmp_path / "settings.json.tmp").write_text(json.dumps(new_settings()))
    assert settings.load(root, N_PRESETS) == (new_settings(), settings.OK)
    assert sorted(os.listdir(root)) == ["settings.json"]
    assert json.loads((tmp_path / "settings.json").read_text()) == new_settings()


def test_tmp_alone_is_recovered(tmp_path):
    (tmp_path / "settings.json.tmp").write_text(json.dumps(new_settings()))
    assert settings.load(str(tmp_path), N_PRESETS) == (new_settings(), settings.OK)


def test_cut_tmp_alone_means_never_saved(tmp_path):
    (tmp_path / "settings.json.tmp").write_text('{"sound": fal')
    assert settings.load(str(tmp_path), N_PRESETS)[1] == settings.DEFAULTS_MISSING


# ---------------------------------------------------------------- power loss and full flash


def save_old(fs):
    assert settings.save("/", settings.defaults(), fs)


def count_steps(model, action):
    fs = new_fs(**model)
    save_old(fs)
    fs.steps = 0
    action(fs)
    return fs.steps


@pytest.mark.parametrize("model", FS_MODELS)
def test_power_cut_at_every_step_of_a_save(model):
    """Whatever the step at which the power goes, the next boot reads the old or the new
    settings, never a corrupt or missing file, and the clock can save again."""
    total = count_steps(model, lambda fs: settings.save("/", new_settings(), fs))
    assert total > 100  # each byte is a step
    seen = set()
    for k in range(total + 1):
        fs = new_fs(**model)
        save_old(fs)
        fs.steps = 0
        fs.die_at = k
        try:
            settings.save("/", new_settings(), fs)
        except PowerLoss:
            pass
        fs = fs.reboot()
        s, status = settings.load("/", N_PRESETS, fs)
        assert status == settings.OK, k
        assert s in (settings.defaults(), new_settings()), k
        seen.add(s == new_settings())
        assert settings.save("/", settings.defaults(), fs)
        assert settings.load("/", N_PRESETS, fs) == (settings.defaults(), settings.OK)
        assert sorted(fs.files) == ["/settings.json"]
    assert seen == {False, True}


@pytest.mark.parametrize("model", FS_MODELS)
def test_power_cut_between_tmp_close_and_rename_is_recovered(model):
    fs = new_fs(**model)
    save_old(fs)
    fs.calls = []
    real_rename = fs.rename

    def rename(src, dst):
        fs.dead = True  # the tmp is closed and whole; the rename never happens
        real_rename(src, dst)

    fs.rename = rename
    with pytest.raises(PowerLoss):
        settings.save("/", new_settings(), fs)
    assert fs.calls[-1] == "close"
    assert "/settings.json.tmp" in fs.files
    fs = fs.reboot()
    assert settings.load("/", N_PRESETS, fs) == (new_settings(), settings.OK)
    assert sorted(fs.files) == ["/settings.json"]


def test_no_replace_fs_cut_after_remove_recovers_the_tmp():
    fs = new_fs(rename_replaces=False)
    save_old(fs)
    fs.calls = []
    real_remove = fs.remove

    def remove(path):
        real_remove(path)
        fs.dead = True  # the target is gone, the tmp not yet renamed

    fs.remove = remove
    with pytest.raises(PowerLoss):
        settings.save("/", new_settings(), fs)
    assert sorted(fs.reboot().files) == ["/settings.json.tmp"]
    assert settings.load("/", N_PRESETS, fs.reboot()) == (new_settings(), settings.OK)


@pytest.mark.parametrize("model", FS_MODELS)
def test_full_flash_on_save_keeps_the_old_file(model):
    fs = new_fs(**model)
    save_old(fs)
    old = dict(fs.files)
    for spare in (0, 1, 50, len(json.dumps(new_settings())) - 1):
        fs.capacity = fs.used() + spare
        assert settings.save("/", new_settings(), fs) is False
        assert fs.files == old, spare  # old file intact, partial tmp removed
        assert settings.load("/", N_PRESETS, fs) == (settings.defaults(), settings.OK)
    fs.capacity = None
    assert settings.save("/", new_settings(), fs)


def test_enospc_from_the_os_is_reported_as_false():
    fs = new_fs()
    save_old(fs)

    def full(path, mode):
        raise OSError(errno.ENOSPC, "no space")

    fs.open = full
    assert settings.save("/", new_settings(), fs) is False
    assert settings.load("/", N_PRESETS, fs.reboot()) == (settings.defaults(), settings.OK)


def test_load_never_raises_on_a_broken_fs():
    class Broken:
        def __getattr__(self, name):
            def fail(*args):
                raise OSError(errno.EIO, "i/o error")

            return fail

    s, status = settings.load("/", N_PRESETS, Broken())
    assert s == settings.defaults()
    # stat() fails too, so the file cannot be told from a missing one: either status is fine
    assert status in (settings.DEFAULTS_MISSING, settings.DEFAULTS_CORRUPT)
    assert settings.save("/", s, Broken()) is False
    assert settings.load_game("/", Broken()) is None
    assert storage.append_log("/log.txt", "x", fs=Broken()) is False


# ---------------------------------------------------------------- storage primitives


def test_read_text_statuses(tmp_path):
    p = str(tmp_path / "notes.txt")
    assert storage.read_text(p) == (None, storage.MISSING)
    storage.write_atomic(p, "héllo\n")
    assert storage.read_text(p) == ("héllo\n", storage.OK)
    (tmp_path / "notes.txt").write_bytes(b"\xff")
    assert storage.read_text(p) == (None, storage.CORRUPT)
    os.remove(p)
    (tmp_path / "notes.txt.tmp").write_text("only the tmp")
    assert storage.read_text(p) == ("only the tmp", storage.RECOVERED)
    assert storage.read_text(p) == ("only the tmp", storage.OK)


def test_read_text_prefers_the_file_over_a_tmp(tmp_path):
    p = str(tmp_path / "notes.txt")
    storage.write_atomic(p, "old")
    (tmp_path / "notes.txt.tmp").write_text("ne")  # cut: nothing tells it is whole
    assert storage.read_text(p) == ("old", storage.OK)


def test_write_atomic_streams_chunks_and_bytes(tmp_path):
    p = str(tmp_path / "f")
    storage.write_atomic(p, (c for c in ["a", b"b", "c"]))
    assert (tmp_path / "f").read_bytes() == b"abc"


def test_write_atomic_failure_in_the_producer_keeps_the_old_file():
    fs = new_fs()
    storage.write_atomic("/f", "old", fs)

    def chunks():
        yield "new"
        raise ValueError("bad row")

    with pytest.raises(ValueError):
        storage.write_atomic("/f", chunks(), fs)
    assert fs.files == {"/f": b"old"}


def test_failed_rename_never_removes_the_target_when_the_tmp_is_gone():
    fs = new_fs(rename_replaces=False)
    storage.write_atomic("/f", "old", fs)

    def rename(src, dst):
        del fs.files[src]  # the tmp vanished (a flash fault)
        raise OSError(errno.ENOENT, "no such file")

    fs.rename = rename
    with pytest.raises(OSError):
        storage.write_atomic("/f", "new", fs)
    assert fs.files == {"/f": b"old"}


def test_rename_that_keeps_failing_leaves_the_new_text_in_the_tmp():
    fs = new_fs(rename_replaces=False)
    storage.write_atomic("/f", "old", fs)

    def rename(src, dst):
        raise OSError(errno.EIO, "i/o error")

    fs.rename = rename
    with pytest.raises(OSError):
        storage.write_atomic("/f", "new", fs)
    assert storage.read_text("/f", fs.reboot()) == ("new", storage.RECOVERED)


def test_delete_removes_tmp_first():
    fs = new_fs()
    fs.files = {"/g.json": b"{}", "/g.json.tmp": b"{}"}
    removed = []
    real_remove = fs.remove

    def remove(path):
        removed.append(path)
        real_remove(path)

    fs.remove = remove
    assert storage.delete("/g.json", fs)
    assert fs.files == {}
    assert removed == ["/g.json.tmp", "/g.json"]
    assert storage.delete("/g.json", fs)  # nothing there is fine


def test_join():
    assert storage.join("/", "a") == "/a"
    assert storage.join("", "a") == "/a"
    assert storage.join("/x", "a") == "/x/a"
    assert storage.join("/x/", "a") == "/x/a"


# ---------------------------------------------------------------- error log


def log_lines(fs, path="/err.log"):
    return fs.files[path].decode().splitlines()


def test_log_appends_until_full_then_keeps_the_tail():
    fs = new_fs()
    for i in range(500):
        assert storage.append_log("/err.log", "entry %03d" % i, max_bytes=1024, fs=fs)
        assert len(fs.files["/err.log"]) <= 1024
    lines = log_lines(fs)
    assert lines[-1] == "entry 499"
    # whole lines only, consecutive, newest kept
    nums = [int(x.split()[1]) for x in lines]
    assert nums == list(range(nums[0], 500))
    assert len(lines) >= 1024 // 2 // 10 - 1


def test_log_rotation_keeps_every_whole_line_that_fits():
    fs = new_fs()
    for i in range(8):  # 8 entries of 8 bytes fill 64 bytes exactly
        storage.append_log("/err.log", "line %02d" % i, max_bytes=64, fs=fs)
    assert len(fs.files["/err.log"]) == 64
    storage.append_log("/err.log", "line 08", max_bytes=64, fs=fs)
    # half the budget (32 bytes) = the 3 newest old lines + the new one
    assert log_lines(fs) == ["line 05", "line 06", "line 07", "line 08"]


def test_log_keeps_the_tail_of_an_oversized_entry(tmp_path):
    p = str(tmp_path / "crash.log")
    storage.append_log(p, "first", max_bytes=256)
    trace = "Traceback\n" + "  line\n" * 100 + "ValueError: boom"
    assert storage.append_log(p, trace, max_bytes=256)
    data = (tmp_path / "crash.log").read_bytes()
    assert len(data) <= 256
    assert data.endswith(b"ValueError: boom\n")


@hsettings(max_examples=150, deadline=None)
@given(
    st.lists(st.text(max_size=300), min_size=1, max_size=60),
    st.integers(min_value=64, max_value=2048),
)
def test_log_never_exceeds_max_bytes(lines, max_bytes):
    fs = new_fs()
    for line in lines:
        assert storage.append_log("/err.log", line, max_bytes=max_bytes, fs=fs)
        assert len(fs.files["/err.log"]) <= max_bytes
    data = fs.files["/err.log"]
    last = lines[-1].encode()
    if not last.endswith(b"\n"):
        last += b"\n"
    last = last[-(max_bytes // 2) :]
    assert data.endswith(last)


def test_log_on_a_full_flash_returns_false_and_keeps_the_log():
    fs = new_fs()
    storage.append_log("/err.log", "x" * 300, max_bytes=512, fs=fs)
    before = dict(fs.files)
    fs.capacity = fs.used()
    assert storage.append_log("/err.log", "y" * 300, max_bytes=512, fs=fs) is False
    assert fs.files["/err.log"].startswith(before["/err.log"])
    assert len(fs.files["/err.log"]) <= 512


# ---------------------------------------------------------------- resume state


def game(half_moves=0):
    """A resume state as settings.load_game() returns it, with a log of `half_moves`."""
    log = []
    for i in range(min(half_moves, settings.LOG_ROWS)):
        log += [(i % 2) | (i // 2 + 1) << 1, 1_000 + i, 5_400_000 - 1_000 * i]
    return {
        "v": 1,
        "id": 4242,
        "control": {"preset": 2},
        "snap": list(range(40)),
        "opts": [1, 0, 1],
        "n": half_moves,
        "arb": [0],
        "log": log,
    }


def save(root, g, fs=os):
    """settings.save_game() as the shell calls it: the state, then the log rows apart."""
    state = dict(g)
    log = state.pop("log")
    rows = [tuple(log[i : i + 3]) for i in range(0, len(log), 3)]
    return settings.save_game(root, state, fs, rows)


def test_game_state_round_trip_and_clear(tmp_path):
    root = str(tmp_path)
    assert settings.load_game(root) is None
    assert save(root, game(5))
    assert settings.load_game(root) == game(5)
    (tmp_path / "game.json.tmp").write_text("{")
    assert settings.clear_game(root)
    assert settings.load_game(root) is None
    assert os.listdir(root) == []


def test_a_600_row_log_is_streamed_out_and_read_back_beyond_the_read_limit():
    fs = new_fs()
    g = game(700)
    for i in range(0, len(g["log"]), 3):  # 5-digit move numbers, 10-digit times: the most
        g["log"][i : i + 3] = [0xFFFF - i, 2**31 - 1 - i, 2**31 - 1]
    # and 64 corrections of the longest ints ("arb" streams too)
    g["arb"] = [2**31 - 1] + [-(2**31), 9, -1, -(2**31), -(2**31), -(2**31)] * settings.ARB_ENTRIES
    assert save("/", g, fs)
    text = fs.files["/game.json"]
    assert storage.READ_LIMIT < len(text) < settings.GAME_READ_LIMIT
    assert max(fs.writes) < 300  # small chunks, no big string
    assert settings.load_game("/", fs) == g


def test_a_typical_600_row_log_is_about_11_kb():
    fs = new_fs()
    assert save("/", game(600), fs)
    assert 9_000 < len(fs.files["/game.json"]) < 12_000


@pytest.mark.parametrize("rows", [[(3, 1, 1)], [(3, 1, 1)] * 3, [(3, 1, -1)] * 2, [(3, 1)] * 2])
def test_a_log_that_does_not_match_its_count_is_not_saved(tmp_path, rows):
    root = str(tmp_path)
    save(root, game(3))
    state = dict(game(2))
    del state["log"]
    assert settings.save_game(root, state, log=rows) is False
    assert settings.load_game(root) == game(3)
    assert os.listdir(root) == ["game.json"]


def test_a_file_larger_than_the_game_limit_is_no_game(tmp_path):
    g = game(1)
    g["pad"] = "x" * settings.GAME_READ_LIMIT
    (tmp_path / "game.json").write_text(json.dumps(g))
    assert settings.load_game(str(tmp_path)) is None


def test_invalid_game_is_not_saved_and_the_old_one_stays(tmp_path):
    root = str(tmp_path)
    save(root, game())
    bad = game()
    bad["snap"] = [1.5]
    assert save(root, bad) is False
    assert settings.load_game(root) == game()


@pytest.mark.parametrize(
    "text",
    ['{"v": 2, "control": {"preset": 0}, "snap": [1], "opts": []}', "[]", "{", ""],
)
def test_junk_game_file_is_no_game(tmp_path, text):
    (tmp_path / "game.json").write_text(text)
    assert settings.load_game(str(tmp_path)) is None


def test_game_preset_checked_against_table(tmp_path):
    save(str(tmp_path), game())
    assert settings.load_game(str(tmp_path), n_presets=2) is None
    assert settings.load_game(str(tmp_path), n_presets=3) == game()


@pytest.mark.parametrize("model", FS_MODELS)
def test_power_cut_during_game_save_keeps_a_whole_game(model):
    fs = new_fs(**model)
    first = game(4)
    second = game(9)
    second["snap"] = [7] * 64
    assert save("/", first, fs)
    fs.steps = 0
    save("/", second, fs)
    total = fs.steps
    for k in range(0, total + 1, 7):
        fs = new_fs(**model)
        save("/", first, fs)
        fs.steps = 0
        fs.die_at = k
        try:
            save("/", second, fs)
        except PowerLoss:
            pass
        assert settings.load_game("/", fs.reboot()) in (first, second), k


# ---------------------------------------------------------------- game logs


def moves(n):
    """n moves of both players: [side, move_no, used_ms, left_ms]."""
    out = []
    left = [300_000, 300_000]
    for i in range(n):
        side = i % 2
        used = 1000 + (i * 7919) % 9000
        left[side] -= used - 3000
        out.append([side, i // 2 + 1, used, left[side]])
    return out


def test_300_move_game_round_trips_in_the_documented_format(tmp_path):
    root = str(tmp_path)
    rows = moves(300)
    name = gamelog.save_game_log(root, "Blitz 5+3", 1, "0-1", "flag", iter(rows))
    assert name == "g000.json"
    doc = json.loads((tmp_path / "games" / name).read_text())
    assert list(doc) == ["version", "id", "control", "white", "result", "reason", "moves"]
    assert doc == {
        "version": 1,
        "id": 0,
        "control": "Blitz 5+3",
        "white": 1,
        "result": "0-1",
        "reason": "flag",
        "moves": rows,
    }
    assert all(type(x) is int for row in doc["moves"] for x in row)
    assert os.listdir(tmp_path / "games") == ["g000.json"]


def test_game_log_is_streamed_in_small_writes():
    fs = new_fs()
    assert gamelog.save_game_log("/", "custom", 0, "1-0", "mate", moves(300), fs)
    size = len(fs.files["/games/g000.json"])
    assert size > 6000
    assert max(fs.writes) < 200  # no single big string


def test_strings_are_json_escaped(tmp_path):
    name = gamelog.save_game_log(str(tmp_path), 'a "q"\\\n', 0, "*", "ñ ü", [])
    doc = json.loads((tmp_path / "games" / name).read_text())
    assert (doc["control"], doc["reason"], doc["moves"]) == ('a "q"\\\n', "ñ ü", [])


def test_keeps_the_newest_20_and_deletes_the_oldest():
    fs = new_fs()
    for i in range(25):
        name = gamelog.save_game_log("/", "custom", 0, "1-0", "game %d" % i, moves(4), fs)
        assert name == "g%03d.json" % i
    names = gamelog.list_games("/", fs)
    assert names == ["g%03d.json" % i for i in range(24, 4, -1)]
    assert len(fs.listdir("/games")) == 20


def test_numbers_cycle_from_999_to_000():
    fs = new_fs()
    fs.dirs.add("/games")
    for n in range(985, 1000):
        fs.files["/games/g%03d.json" % n] = b"{}"
    got = [gamelog.save_game_log("/", "x", 0, "*", "", [], fs) for _ in range(10)]
    assert got == ["g%03d.json" % n for n in range(10)]
    names = gamelog.list_games("/", fs)
    want = list(range(9, -1, -1)) + list(range(999, 989, -1))
    assert names == ["g%03d.json" % n for n in want]
    assert sorted(fs.listdir("/games")) == sorted(names)


def test_list_games_ignores_other_files_and_missing_dir(tmp_path):
    assert gamelog.list_games(str(tmp_path)) == []
    games = tmp_path / "games"
    games.mkdir()
    for name in ("g001.json", "g002.json", "g02.json", "gabc.json", "x001.json", "g003.txt"):
        (games / name).write_text("{}")
    assert gamelog.list_games(str(tmp_path)) == ["g002.json", "g001.json"]


@pytest.mark.parametrize(
    "args",
    [
        ("c", 2, "1-0", "r"),
        ("c", True, "1-0", "r"),
        ("c", 0, "1:0", "r"),
        ("c", 0, "1-0", None),
        (None, 0, "1-0", "r"),
    ],
)
def test_bad_arguments_write_nothing(args):
    fs = new_fs()
    assert gamelog.save_game_log("/", *args, moves(2), fs=fs) is None
    assert fs.files == {}


def test_overtime_rows_have_a_fifth_item(tmp_path):
    root = str(tmp_path)
    rows = [[1, 1, 30000, 30000, 0], [0, 1, 2000, 58000, 0], [1, 2, 35000, 10000, 3]]
    name = gamelog.save_game_log(root, "custom", 1, "0-1", "flag", rows)
    assert json.loads((tmp_path / "games" / name).read_text())["moves"] == rows


@pytest.mark.parametrize(
    "row",
    [[0, 1, 2], [2, 1, 5, 5], [0, 1, -5, 5], [0, 1, 5.0, 5], None, [0, 1, 5, 5, -1], [0] * 6],
)
def test_bad_move_row_aborts_and_keeps_older_logs(row):
    fs = new_fs()
    gamelog.save_game_log("/", "c", 0, "1-0", "r", moves(2), fs)
    before = dict(fs.files)
    assert gamelog.save_game_log("/", "c", 0, "1-0", "r", moves(10) + [row], fs) is None
    assert fs.files == before


def test_full_flash_makes_room_by_deleting_the_oldest_logs():
    fs = new_fs()
    for _ in range(5):
        gamelog.save_game_log("/", "c", 0, "1-0", "r", moves(40), fs)
    fs.capacity = fs.used() + 500  # a 40-move log is ~1 KB
    name = gamelog.save_game_log("/", "c", 0, "1-0", "r", moves(40), fs)
    assert name == "g005.json"
    names = gamelog.list_games("/", fs)
    assert names[0] == "g005.json"
    assert "g000.json" not in names
    assert json.loads(fs.files["/games/g005.json"])["moves"] == moves(40)


def test_full_flash_with_a_generator_gives_up_without_harm():
    fs = new_fs()
    gamelog.save_game_log("/", "c", 0, "1-0", "r", moves(40), fs)
    before = dict(fs.files)
    fs.capacity = fs.used() + 100
    assert gamelog.save_game_log("/", "c", 0, "1-0", "r", iter(moves(40)), fs) is None
    assert fs.files == before


def test_whole_log_cut_before_rename_is_kept_and_cut_one_dropped():
    fs = new_fs()
    gamelog.save_game_log("/", "c", 0, "1-0", "r", moves(4), fs)
    real_rename = fs.rename

    def rename(src, dst):
        fs.dead = True
        real_rename(src, dst)

    fs.rename = rename
    with pytest.raises(PowerLoss):
        gamelog.save_game_log("/", "c", 1, "0-1", "r", moves(6), fs)
    fs = fs.reboot()
    assert "/games/g001.json.tmp" in fs.files
    assert gamelog.save_game_log("/", "c", 0, "*", "r", moves(2), fs) == "g002.json"
    assert gamelog.list_games("/", fs) == ["g002.json", "g001.json", "g000.json"]
    assert json.loads(fs.files["/games/g001.json"])["moves"] == moves(6)
    # a cut tmp is dropped, not kept
    fs.files["/games/g003.json.tmp"] = b'{"version": 1, "mo'
    assert gamelog.save_game_log("/", "c", 0, "*", "r", [], fs) == "g003.json"
    assert "/games/g003.json.tmp" not in fs.files


@pytest.mark.parametrize("model", FS_MODELS[:2])
def test_power_cut_while_saving_a_log_keeps_the_older_logs(model):
    base = new_fs(**model)
    gamelog.save_game_log("/", "c", 0, "1-0", "r", moves(3), base)
    fs = base.reboot()
    fs.steps = 0
    gamelog.save_game_log("/", "c", 0, "1-0", "r", moves(3), fs)
    total = fs.steps
    for k in range(total + 1):
        fs = base.reboot()
        fs.die_at = k
        try:
            gamelog.save_game_log("/", "c", 0, "1-0", "r", moves(3), fs)
        except PowerLoss:
            pass
        fs = fs.reboot()
        names = gamelog.list_games("/", fs)
        assert names[-1] == "g000.json", k
        for name in names:
            doc = json.loads(fs.files["/games/" + name])
            assert doc["moves"] == moves(3), (k, name)


# ---------------------------------------------------------------- properties of validate()

json_scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**20), max_value=10**20)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=8)
)
json_values = st.recursive(
    json_scalars,
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=6), inner),
    max_leaves=30,
)
KEYS = [
    "sound",
    "freeze",
    "inc_before",
    "transition",
    "rules",
    "brightness",
    "low_time_s",
    "battery",
]
small_ints = st.integers(min_value=-2, max_value=40000)
periods = st.lists(
    st.lists(small_ints | st.booleans(), min_size=3, max_size=5) | json_values,
    min_size=0,
    max_size=6,
)
controls = st.one_of(
    json_values,
    st.fixed_dictionaries({"preset": st.integers(min_value=-3, max_value=30) | json_values}),
    st.fixed_dictionaries(
        {
            "custom": st.fixed_dictionaries(
                {"mode": st.integers(min_value=-1, max_value=3), "periods": periods}
            )
        }
    ),
)
near_settings = st.dictionaries(
    st.sampled_from(KEYS + ["control", "other"]),
    st.integers(min_value=-2, max_value=700) | st.booleans() | json_values,
).flatmap(lambda d: st.just(d) | controls.map(lambda c: dict(d, control=c)))


@hsettings(max_examples=400, deadline=None)
@given(st.one_of(json_values, near_settings), st.integers(min_value=1, max_value=40))
def test_validate_never_raises_and_is_idempotent(raw, n_presets):
    s, problems = settings.validate(raw, n_presets)
    assert isinstance(s, dict) and isinstance(problems, dict)
    assert sorted(s) == sorted(KEYS + ["control", "kept"])
    assert settings.validate(s, n_presets) == (s, {})
    assert json.loads(json.dumps(s)) == s  # always saveable
    for key, value in s.items():
        if key != "control":
            assert type(value) is type(settings.defaults()[key])


@hsettings(max_examples=400, deadline=None)
@given(st.one_of(json_values, near_settings))
def test_validate_survives_a_json_round_trip(raw):
    raw = json.loads(json.dumps(raw))
    s, problems = settings.validate(raw, N_PRESETS)
    assert settings.validate(s, N_PRESETS) == (s, {})
    if not problems and isinstance(raw, dict):
        # a valid file loads exactly as written (a key it may lack: its default)
        assert s == {k: raw[k] if k in raw else settings.defaults()[k] for k in s}


valid_periods = st.lists(
    st.tuples(
        st.integers(min_value=0, max_value=36000),
        st.integers(min_value=0, max_value=200),
        st.integers(min_value=0, max_value=3),
        st.integers(min_value=0, max_value=300),
    ),
    min_size=1,
    max_size=4,
)


overtimes = st.one_of(
    st.none(),
    st.tuples(
        st.sampled_from([-1, 0, 1, 2, 25, 98, 99, 100, 199, 200, 201]),
        st.sampled_from([-1, 0, 1, 30, 600, 3599, 3600, 3601, 35999, 36000, 36001]),
    ),
    st.tuples(st.integers(min_value=1, max_value=99), st.integers(min_value=1, max_value=3600)),
)
one_main_period = st.tuples(
    st.sampled_from([0, 1, 3600, 36000, 36001]),
    st.sampled_from([0, 0, 0, 40]),
    st.sampled_from([0, 0, 1, 1, 2, 3]),
    st.sampled_from([0, 5, 300, 301]),
).map(lambda p: [p])


@hsettings(max_examples=1000, deadline=None)
@given(
    st.sampled_from([0, 1, 2, 3, 3, 4, 4]), st.one_of(valid_periods, one_main_period), overtimes
)
def test_custom_controls_agree_with_timecontrol(mode, raw_periods, overtime):
    """A control the settings accept builds a TimeControl, and the other way round."""
    timecontrol = pytest.importorskip("timecontrol")
    periods = [list(p) for p in raw_periods]
    custom = {"mode": mode, "periods": periods}
    if overtime is not None:
        custom["overtime"] = list(overtime)
    accepted = settings.check_control({"custom": custom}, N_PRESETS)
    try:
        timecontrol.from_seconds(mode, periods, overtime=overtime)
        built = True
    except ValueError:
        built = False
    assert (accepted is not None) == built, (mode, periods, overtime)


@hsettings(max_examples=300, deadline=None)
@given(json_values | st.fixed_dictionaries({"v": st.just(1), "snap": json_values}))
def test_check_game_never_raises(raw):
    out = settings.check_game(raw)
    assert out is None or settings.check_game(out) == out
