"""settings.validate / check_control / check_game: junk in, complete valid settings out.

Runs under CPython and MicroPython (plain unittest, firmware modules only)."""

import unittest

import settings
from settings import MISSING, RANGE, TYPE, WHOLE, check_control, check_game, defaults, validate

N = 17  # presets in the table for these tests

SIMPLE_KEYS = ("sound", "freeze", "inc_before", "transition", "rules", "brightness", "low_time_s")


def good():
    return {
        "sound": False,
        "freeze": False,
        "inc_before": True,
        "transition": 1,
        "rules": 1,
        "brightness": 7,
        "low_time_s": 600,
        "battery": 1,
        "control": {"preset": 16},
        "kept": [custom(0, [[900, 0, 1, 5]]), custom(0, [[2700, 0, 3, 5]])],
    }


def custom(mode, periods, overtime=None):
    c = {"mode": mode, "periods": periods}
    if overtime is not None:
        c["overtime"] = overtime
    return {"custom": c}


class TestDefaults(unittest.TestCase):
    def test_defaults_are_the_documented_ones(self):
        self.assertEqual(
            defaults(),
            {
                "sound": True,
                "freeze": True,
                "inc_before": False,
                "transition": 0,
                "rules": 0,
                "brightness": 2,
                "low_time_s": 10,
                "battery": 0,
                "control": {"preset": 0},
                "kept": [],
            },
        )

    def test_defaults_validate_to_themselves(self):
        self.assertEqual(validate(defaults(), N), (defaults(), {}))

    def test_defaults_are_fresh_each_time(self):
        d = defaults()
        d["control"]["preset"] = 5
        d["brightness"] = 1
        self.assertEqual(defaults()["control"], {"preset": 0})
        self.assertEqual(defaults()["brightness"], 2)


class TestJunk(unittest.TestCase):
    def test_non_objects_give_defaults_and_one_problem(self):
        for raw in (None, [], [1, 2], "x", "", 0, 7, -1.5, True, False, [{"sound": True}]):
            with self.subTest(raw=raw):
                s, problems = validate(raw, N)
                self.assertEqual(s, defaults())
                self.assertEqual(problems, {WHOLE: TYPE})

    def test_empty_object_reports_every_key_missing(self):
        s, problems = validate({}, N)
        self.assertEqual(s, defaults())
        for key in SIMPLE_KEYS + ("control",):
            self.assertEqual(problems[key], MISSING)
        self.assertEqual(len(problems), 8)

    def test_valid_settings_come_back_unchanged(self):
        s, problems = validate(good(), N)
        self.assertEqual(problems, {})
        self.assertEqual(s, good())

    def test_unknown_keys_are_dropped_without_a_problem(self):
        raw = good()
        raw["volume"] = 11
        raw["nested"] = {"a": [1, {"b": None}]}
        s, problems = validate(raw, N)
        self.assertEqual(problems, {})
        self.assertEqual(s, good())

    def test_nested_junk_in_every_key(self):
        junk = {"a": [None, {"b": [[[]]]}], "c": "d"}
        raw = {}
        for key in SIMPLE_KEYS + ("control",):
            raw[key] = junk
        s, problems = validate(raw, N)
        self.assertEqual(s, defaults())
        for key in SIMPLE_KEYS + ("control",):
            self.assertEqual(problems[key], TYPE)


class TestKept(unittest.TestCase):
    def test_a_file_without_kept_controls_loads_with_none_without_complaint(self):
        raw = good()
        del raw["kept"]
        self.assertEqual(validate(raw, N), (dict(good(), kept=[]), {}))

    def test_bad_entries_are_dropped_and_reported(self):
        raw = good()
        raw["kept"] = [{"preset": 1}, custom(0, [[900, 0, 1, 5]]), "x", custom(7, [[1, 0, 0, 0]])]
        s, problems = validate(raw, N)
        self.assertEqual(s["kept"], [custom(0, [[900, 0, 1, 5]])])
        self.assertEqual(problems, {"kept": RANGE})

    def test_at_most_five_are_kept(self):
        raw = good()
        raw["kept"] = [custom(0, [[60 * (i + 1), 0, 0, 0]]) for i in range(7)]
        s, problems = validate(raw, N)
        self.assertEqual(s["kept"], raw["kept"][:5])
        self.assertEqual(problems, {"kept": RANGE})

    def test_not_a_list_is_none_kept(self):
        raw = good()
        raw["kept"] = {"custom": 1}
        self.assertEqual(validate(raw, N)[0]["kept"], [])
        self.assertEqual(validate(raw, N)[1], {"kept": TYPE})


class TestBatteryKind(unittest.TestCase):
    def test_a_file_without_the_battery_kind_loads_as_alkaline_without_complaint(self):
        raw = good()
        del raw["battery"]
        s, problems = validate(raw, N)
        self.assertEqual(problems, {})
        self.assertEqual(s["battery"], 0)
        self.assertEqual(s["brightness"], 7)  # the rest as written

    def test_both_kinds_are_kept(self):
        for kind in (0, 1):
            raw = good()
            raw["battery"] = kind
            self.assertEqual(validate(raw, N), (raw, {}))

    def test_a_bad_kind_is_refused_and_reported(self):
        for value, code in (("NiMH", TYPE), (1.0, TYPE), (None, TYPE), (3, RANGE)):
            with self.subTest(value=value):
                raw = good()
                raw["battery"] = value
                s, problems = validate(raw, N)
                self.assertEqual(problems, {"battery": code})
                self.assertEqual(s["battery"], 0)


class TestWrongTypes(unittest.TestCase):
    def check(self, key, value, code):
        raw = good()
        raw[key] = value
        s, problems = validate(raw, N)
        self.assertEqual(problems, {key: code})
        self.assertEqual(s[key], defaults()[key])
        self.assertTrue(type(s[key]) is type(defaults()[key]))
        for other in SIMPLE_KEYS:  # the good keys survive
            if other != key:
                self.assertEqual(s[other], good()[other])

    def test_bools_are_not_ints(self):
        for key in ("transition", "rules", "brightness", "low_time_s", "battery"):
            for value in (True, False):
                with self.subTest(key=key, value=value):
                    self.check(key, value, TYPE)

    def test_ints_are_not_bools(self):
        for key in ("sound", "freeze", "inc_before"):
            for value in (0, 1, "true", None, [True]):
                with self.subTest(key=key, value=value):
                    self.check(key, value, TYPE)

    def test_floats_strings_and_containers_are_not_ints(self):
        for value in (4.0, 4.5, "4", None, [4], {"v": 4}):
            with self.subTest(value=value):
                self.check("brightness", value, TYPE)

    def test_out_of_range(self):
        cases = (
            ("brightness", -1),
            ("brightness", 8),
            ("low_time_s", -1),
            ("low_time_s", 601),
            ("low_time_s", 10**30),
            ("transition", 2),
            ("rules", -1),
            ("rules", 2),
            ("battery", -1),
            ("battery", 2),
        )
        for key, value in cases:
            with self.subTest(key=key, value=value):
                self.check(key, value, RANGE)

    def test_range_edges_are_valid(self):
        for key, value in (("brightness", 0), ("low_time_s", 0), ("transition", 0)):
            raw = good()
            raw[key] = value
            s, problems = validate(raw, N)
            self.assertEqual(problems, {})
            self.assertEqual(s[key], value)


class TestPresetControl(unittest.TestCase):
    def check(self, control, code):
        raw = good()
        raw["control"] = control
        s, problems = validate(raw, N)
        self.assertEqual(problems, {"control": code})
        self.assertEqual(s["control"], {"preset": 0})

    def test_preset_in_range(self):
        for i in (0, 1, N - 1):
            self.assertEqual(check_control({"preset": i}, N), {"preset": i})

    def test_preset_out_of_range(self):
        for i in (N, N + 1, -1, 1000):
            with self.subTest(i=i):
                self.check({"preset": i}, RANGE)

    def test_preset_wrong_type(self):
        for i in (True, False, "0", 0.0, None, [0]):
            with self.subTest(i=i):
                self.check({"preset": i}, TYPE)

    def test_control_shape(self):
        both = {"preset": 0, "custom": {"mode": 0, "periods": [[60, 0, 0, 0]]}}
        for c in ({}, both, {"index": 0}, [0], 0, "preset", None):
            with self.subTest(c=c):
                self.check(c, TYPE)

    def test_extra_keys_in_control_are_dropped(self):
        self.assertEqual(check_control({"preset": 2, "x": 1}, N), {"preset": 2})


class TestCustomControl(unittest.TestCase):
    def check_bad(self, control, code):
        raw = good()
        raw["control"] = control
        s, problems = validate(raw, N)
        self.assertEqual(problems, {"control": code})
        self.assertEqual(s["control"], {"preset": 0})
        self.assertEqual(check_control(control, N), None)

    def test_valid_customs(self):
        cases = (
            custom(0, [[300, 0, 1, 3]]),
            custom(0, [[5400, 40, 1, 30], [1800, 0, 1, 30]]),
            custom(0, [[7200, 40, 0, 0], [3600, 20, 0, 0], [1800, 10, 2, 5], [900, 0, 3, 5]]),
            custom(0, [[36000, 200, 3, 300], [0, 0, 0, 0]]),
            custom(0, [[0, 0, 3, 5]]),  # a delay-only countdown has time to start with
            custom(0, [[1, 0, 0, 0]]),  # one second, no bonus
            custom(1, [[60, 0, 0, 0]]),  # hourglass
            custom(2, [[0, 0, 0, 0]]),  # upcount (stopwatch)
        )
        for c in cases:
            with self.subTest(c=c):
                raw = good()
                raw["control"] = c
                s, problems = validate(raw, N)
                self.assertEqual(problems, {})
                self.assertEqual(s["control"], c)

    def test_tuples_become_lists_and_are_copied(self):
        periods = [(5400, 40, 1, 30), (1800, 0, 1, 30)]
        c = check_control({"custom": {"mode": 0, "periods": tuple(periods)}}, N)
        self.assertEqual(c, custom(0, [[5400, 40, 1, 30], [1800, 0, 1, 30]]))
        self.assertTrue(type(c["custom"]["periods"]) is list)
        self.assertTrue(type(c["custom"]["periods"][0]) is list)
        src = custom(0, [[300, 0, 1, 3]])
        out = check_control(src, N)
        out["custom"]["periods"][0][0] = 1
        self.assertEqual(src["custom"]["periods"][0][0], 300)

    def test_period_count(self):
        self.check_bad(custom(0, []), RANGE)
        five = [[60, 10, 0, 0]] * 4 + [[60, 0, 0, 0]]
        self.check_bad(custom(0, five), RANGE)

    def test_rest_of_game_only_and_always_last(self):
        self.check_bad(custom(0, [[5400, 40, 1, 30]]), RANGE)
        self.check_bad(custom(0, [[5400, 40, 1, 30], [1800, 20, 1, 30]]), RANGE)
        self.check_bad(custom(0, [[5400, 0, 1, 30], [1800, 0, 1, 30]]), RANGE)

    def test_numbers_out_of_range(self):
        for p in (
            [-1, 0, 0, 0],
            [36001, 0, 0, 0],
            [60, -1, 0, 0],
            [60, 0, 4, 5],
            [60, 0, -1, 5],
            [60, 0, 1, 301],
            [60, 0, 1, -1],
        ):
            with self.subTest(p=p):
                self.check_bad(custom(0, [p]), RANGE)
        self.check_bad(custom(0, [[60, 201, 0, 0], [60, 0, 0, 0]]), RANGE)

    def test_period_types(self):
        for p in (
            [60, 0, 0],
            [60, 0, 0, 0, 0],
            [60.0, 0, 0, 0],
            [True, 0, 0, 0],
            [60, False, 0, 0],
            [60, 0, "1", 5],
            [60, 0, 1, None],
            {"time": 60},
            "60,0,0,0",
            60,
            None,
        ):
            with self.subTest(p=p):
                self.check_bad(custom(0, [p]), TYPE)

    def test_custom_shape(self):
        for cu in (
            None,
            [],
            {"mode": 0},
            {"periods": [[60, 0, 0, 0]]},
            {"mode": True, "periods": [[60, 0, 0, 0]]},
            {"mode": "0", "periods": [[60, 0, 0, 0]]},
            {"mode": 0, "periods": {"0": [60, 0, 0, 0]}},
            {"mode": 0, "periods": "[[60, 0, 0, 0]]"},
        ):
            with self.subTest(cu=cu):
                self.check_bad({"custom": cu}, TYPE)
        self.check_bad(custom(5, [[60, 0, 0, 0]]), RANGE)
        self.check_bad(custom(-1, [[60, 0, 0, 0]]), RANGE)

    def test_rules_shared_with_timecontrol(self):
        self.check_bad(custom(0, [[0, 0, 0, 0]]), RANGE)  # countdown from zero
        self.check_bad(custom(0, [[0, 0, 1, 5]]), RANGE)  # increment does not start a clock
        self.check_bad(custom(1, [[60, 0, 1, 5]]), RANGE)  # hourglass with a bonus
        self.check_bad(custom(2, [[60, 10, 0, 0], [60, 0, 0, 0]]), RANGE)  # upcount periods


class TestOvertimeControl(TestCustomControl):
    """Byo-yomi (mode 3) and Canadian (mode 4) customs: one main period and "overtime"."""

    def test_valid_overtime_customs(self):
        cases = (
            custom(3, [[3600, 0, 0, 0]], [5, 30]),
            custom(3, [[0, 0, 0, 0]], [1, 1]),  # pure byo-yomi
            custom(3, [[600, 0, 1, 5]], [3, 3600]),  # an increment in main time
            custom(3, [[600, 0, 1, 0]], [99, 60]),
            custom(4, [[3600, 0, 0, 0]], [25, 600]),
            custom(4, [[0, 0, 0, 0]], [200, 36000]),
        )
        for c in cases:
            with self.subTest(c=c):
                raw = good()
                raw["control"] = c
                s, problems = validate(raw, N)
                self.assertEqual(problems, {})
                self.assertEqual(s["control"], c)

    def test_overtime_tuple_becomes_a_list(self):
        c = check_control(
            {"custom": {"mode": 3, "periods": [[60, 0, 0, 0]], "overtime": (5, 30)}}, N
        )
        self.assertEqual(c, custom(3, [[60, 0, 0, 0]], [5, 30]))
        self.assertTrue(type(c["custom"]["overtime"]) is list)

    def test_bad_overtime(self):
        for c, code in (
            (custom(3, [[60, 0, 0, 0]]), TYPE),  # no overtime
            (custom(3, [[60, 0, 0, 0]], 5), TYPE),
            (custom(3, [[60, 0, 0, 0]], [5]), TYPE),
            (custom(3, [[60, 0, 0, 0]], [5, 30.0]), TYPE),
            (custom(3, [[60, 0, 0, 0]], [True, 30]), TYPE),
            (custom(3, [[60, 0, 0, 0]], [0, 30]), RANGE),
            (custom(3, [[60, 0, 0, 0]], [100, 30]), RANGE),
            (custom(3, [[60, 0, 0, 0]], [5, 0]), RANGE),
            (custom(3, [[60, 0, 0, 0]], [5, 3601]), RANGE),
            (custom(3, [[60, 0, 2, 5]], [5, 30]), RANGE),  # Bronstein
            (custom(3, [[60, 0, 3, 5]], [5, 30]), RANGE),  # delay
            (custom(3, [[0, 0, 1, 5]], [5, 30]), RANGE),  # increment without main time
            (custom(3, [[60, 40, 0, 0], [60, 0, 0, 0]], [5, 30]), RANGE),
            (custom(4, [[60, 0, 1, 5]], [25, 600]), RANGE),
            (custom(4, [[60, 0, 0, 0]], [201, 600]), RANGE),
            (custom(4, [[60, 0, 0, 0]], [25, 36001]), RANGE),
            (custom(0, [[60, 0, 0, 0]], [25, 600]), RANGE),  # overtime in a countdown
            (custom(1, [[60, 0, 0, 0]], [25, 600]), RANGE),
        ):
            with self.subTest(c=c):
                self.check_bad(c, code)


class TestGameState(unittest.TestCase):
    def game(self):
        return {
            "v": 1,
            "id": 12345,
            "control": {"preset": 3},
            "snap": [0, 1, -5, 2**31 - 1],
            "opts": [1, 0],
            "n": 2,
            "arb": [0],
            "log": [3, 1_000, 60_000, 2, 2_000, 59_000],
        }

    def test_valid_game(self):
        self.assertEqual(check_game(self.game()), self.game())
        g = self.game()
        g["control"] = custom(0, [[300, 0, 1, 3]])
        g["opts"] = []
        self.assertEqual(check_game(g), g)

    def test_a_file_from_before_the_log_loads_with_no_log(self):
        g = self.game()
        for key in ("id", "n", "log", "arb"):
            del g[key]
        want = dict(g, id=0, n=0, log=[], arb=[0])
        self.assertEqual(check_game(g), want)

    def test_the_arbiters_corrections_are_kept_and_checked(self):
        g = self.game()
        g["arb"] = [2, 1, 3, 0, 60_000, 61_000, 60_000]
        self.assertEqual(check_game(g), g)
        g["arb"] = [0] + [1, 3, 0, 0, 0, 0] * settings.ARB_ENTRIES
        self.assertEqual(check_game(g), g)
        for bad in ([], None, "x", [0, 1.5], [True], [0] * (2 + 6 * settings.ARB_ENTRIES)):
            g["arb"] = bad
            self.assertIsNone(check_game(g), bad)

    def test_the_log_holds_the_newest_600_half_moves(self):
        g = self.game()
        g["n"] = 1000
        g["log"] = [2, 0, 0] * settings.LOG_ROWS
        self.assertEqual(check_game(g), g)
        g["log"] = g["log"][:-3]
        self.assertEqual(check_game(g), None)

    def test_extra_keys_dropped_and_copied(self):
        g = self.game()
        g["junk"] = [1]
        out = check_game(g)
        self.assertEqual(out, self.game())
        out["snap"][0] = 99
        self.assertEqual(g["snap"][0], 0)

    def test_anything_else_is_no_game(self):
        def with_(key, value):
            g = self.game()
            g[key] = value
            return g

        def without(key):
            g = self.game()
            del g[key]
            return g

        cases = [None, [], "game", 1, {}]
        cases += [without(k) for k in ("v", "control", "snap", "opts", "n")]
        cases += [with_("v", v) for v in (0, 2, True, "1", 1.0)]
        cases += [with_("control", c) for c in ({"preset": -1}, {}, None, custom(0, []))]
        cases += [with_("snap", s) for s in ([], [0] * 65, [True], [1.5], [None], "0", None)]
        cases += [with_("snap", [2**31]), with_("snap", [-(2**31) - 1])]
        cases += [with_("opts", o) for o in ([0] * 17, [False], {"a": 1}, None)]
        cases += [with_("id", v) for v in (-1, 2**31, True, "7", None)]
        cases += [with_("n", v) for v in (-1, 2**31, 1, 3, False, 2.0)]
        cases += [with_("log", v) for v in (None, "", [3, 1, 1], [3, 1, 1, 2, 1, 1.0])]
        cases += [with_("log", [3, 1, 1, 2, 1, -1]), with_("log", [3, 1, 1, 2, 1, 2**31])]
        for g in cases:
            with self.subTest(g=g):
                self.assertEqual(check_game(g), None)

    def test_preset_bound_is_applied_when_given(self):
        self.assertEqual(check_game(self.game(), n_presets=3), None)
        self.assertEqual(check_game(self.game(), n_presets=4), self.game())


class TestIdempotence(unittest.TestCase):
    def test_output_always_validates_to_itself(self):
        samples = (
            None,
            {},
            good(),
            {"brightness": 9, "sound": 0, "control": {"preset": 99}},
            {"control": custom(0, [(60, 0, 1, 2)]), "low_time_s": 5},
            {"rules": True, "control": {"custom": {"mode": 0, "periods": [[1, 2, 3]]}}},
        )
        for raw in samples:
            with self.subTest(raw=raw):
                s, _problems = validate(raw, N)
                self.assertEqual(validate(s, N), (s, {}))

    def test_status_constants_are_distinct(self):
        codes = (settings.OK, settings.DEFAULTS_MISSING, settings.DEFAULTS_CORRUPT)
        codes += (settings.FIXED_INVALID,)
        self.assertEqual(len(set(codes)), 4)
