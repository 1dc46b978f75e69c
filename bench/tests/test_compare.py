"""Unit tests for tools/empi-bench/empi-bench-compare and the result schema.

Run with:  python3 -m pytest bench/tests   or
           python3 -m unittest discover -s bench/tests -p 'test_*.py'
"""
import copy
import importlib.machinery
import importlib.util
import json
import os
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
TOOL = os.path.join(ROOT, "tools", "empi-bench", "empi-bench-compare")
DATA = os.path.join(HERE, "data")


def _load(name, path):
    # The tool has no .py suffix (it is installed as a command), so load it
    # through an explicit source loader.
    loader = importlib.machinery.SourceFileLoader(name, path)
    spec = importlib.util.spec_from_loader(name, loader)
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    return mod


cmp = _load("empi_bench_compare", TOOL)
vj = _load("validate_json", os.path.join(HERE, "validate_json.py"))

SAMPLE_TEXT = """\
# EtherMPI empi-bench latency test
# Library: MPICH Version:      5.0.2
# Processes: 2
# Data validation: on (timings exclude fill/check)
# Size            Latency (us)  Iterations  Validation
1                         0.95        1000        Pass
2                         0.96        1000        Fail
4096                      1.14        1000        Pass
"""


def doc(case, primary, rows, lib="X"):
    return {"case": case, "primary": primary, "library": lib,
            "results": [dict(size=s, iterations=1, errors=0, **{primary: v}) for s, v in rows]}


class TextParsing(unittest.TestCase):
    def test_columns_and_rows(self):
        t = cmp.parse_text_output(SAMPLE_TEXT)
        self.assertEqual(t["title"], "latency test")
        self.assertEqual(t["columns"], ["Latency (us)", "Iterations", "Validation"])
        self.assertEqual(len(t["rows"]), 3)
        self.assertEqual(t["rows"][0]["size"], 1)
        self.assertAlmostEqual(t["rows"][2]["Latency (us)"], 1.14)
        self.assertEqual(t["rows"][1]["Validation"], "Fail")

    def test_sizeless_row_and_notes(self):
        text = ("# EtherMPI empi-bench barrier latency test\n# Processes: 4\n"
                "# Size        Avg Latency (us)\n-                         6.71\n")
        t = cmp.parse_text_output(text)
        self.assertEqual(t["rows"], [{"size": None, "Avg Latency (us)": 6.71}])

    def test_no_header_means_no_rows(self):
        self.assertEqual(cmp.parse_text_output("hello\n1 2 3\n")["rows"], [])


class LoadResult(unittest.TestCase):
    def test_sample_files_load(self):
        d = cmp.load_result(os.path.join(DATA, "latency.json"))
        self.assertEqual(d["case"], "latency")
        self.assertEqual(d["primary"], "latency_us")

    def test_missing_field_rejected(self):
        with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
            json.dump({"case": "x"}, f)
        try:
            with self.assertRaises(ValueError):
                cmp.load_result(f.name)
        finally:
            os.unlink(f.name)


class MediansAndRatios(unittest.TestCase):
    def test_median_ignores_missing(self):
        self.assertEqual(cmp.median([3.0, None, 1.0, 2.0]), 2.0)
        self.assertEqual(cmp.median([1.0, 2.0, 3.0, 4.0]), 2.5)
        self.assertIsNone(cmp.median([None]))

    def test_aggregate_takes_median_per_size(self):
        res = [("mpich", doc("latency", "latency_us", [(1, 1.0), (2, 5.0)])),
               ("mpich", doc("latency", "latency_us", [(1, 3.0), (2, 7.0)])),
               ("mpich", doc("latency", "latency_us", [(1, 2.0), (2, 6.0)])),
               ("openmpi", doc("latency", "latency_us", [(1, 0.5)]))]
        agg = cmp.aggregate(res)
        self.assertEqual(agg["latency"]["sizes"], [1, 2])
        self.assertEqual(agg["latency"]["libs"]["mpich"], {1: 2.0, 2: 6.0})
        self.assertEqual(agg["latency"]["libs"]["openmpi"], {1: 0.5})

    def test_sizeless_rows_use_minus_one(self):
        agg = cmp.aggregate([("a", doc("barrier", "latency_us", [(None, 4.0)]))])
        self.assertEqual(agg["barrier"]["libs"]["a"], {-1: 4.0})

    def test_direction(self):
        self.assertTrue(cmp.lower_is_better("latency_us"))
        self.assertFalse(cmp.lower_is_better("bandwidth_MBps"))
        self.assertFalse(cmp.lower_is_better("message_rate"))
        for key in ("pack_MBps", "unpack_MBps", "memcpy_MBps", "pack_vs_memcpy", "unpack_vs_memcpy"):
            self.assertFalse(cmp.lower_is_better(key), key)

    def test_pack_case_report(self):
        with open(os.path.join(DATA, "pack_vec256.json")) as f:
            ours = json.load(f)
        peer = copy.deepcopy(ours)
        for row in peer["results"]:
            row["pack_MBps"] = 2 * row["pack_MBps"]
        agg = cmp.aggregate([(cmp.OURS, ours), ("mpich", peer)])
        self.assertEqual(agg["pack_vec256"]["metric"], "pack_MBps")
        self.assertEqual(agg["pack_vec256"]["sizes"], [256, 512, 1024, 2048, 4096])
        md = cmp.render_markdown(agg)
        self.assertIn("## pack_vec256 (pack_MBps, higher is better)", md)
        self.assertIn("| 1K | 7490.9 | 14981.7 | mpich | 0.50 |", md)

    def test_best_peer_by_direction(self):
        vals = {"mpich": 2.0, "openmpi": 1.0, "impi": None}
        self.assertEqual(cmp.best_peer(vals, "latency_us"), ("openmpi", 1.0))
        self.assertEqual(cmp.best_peer(vals, "bandwidth_MBps"), ("mpich", 2.0))
        self.assertEqual(cmp.best_peer({}, "latency_us"), (None, None))

    def test_ratio(self):
        self.assertAlmostEqual(cmp.ratio(3.0, 2.0), 1.5)
        self.assertIsNone(cmp.ratio(None, 2.0))
        self.assertIsNone(cmp.ratio(1.0, 0))

    def test_markdown_has_ratio_column_only_with_ours(self):
        res = [("mpich", doc("bw", "bandwidth_MBps", [(1024, 100.0)])),
               ("openmpi", doc("bw", "bandwidth_MBps", [(1024, 200.0)]))]
        md = cmp.render_markdown(cmp.aggregate(res))
        self.assertIn("| 1K | 100.0 | 200.0 | openmpi |", md)
        self.assertNotIn("Ours/best", md)
        res.append((cmp.OURS, doc("bw", "bandwidth_MBps", [(1024, 150.0)])))
        md = cmp.render_markdown(cmp.aggregate(res))
        self.assertIn("| Size | ethermpi | mpich | openmpi | Best peer | Ours/best |", md)
        self.assertIn("| 1K | 150.0 | 100.0 | 200.0 | openmpi | 0.75 |", md)

    def test_markdown_lists_skipped_peers(self):
        md = cmp.render_markdown({}, {"np": 2, "reps": 1, "skipped": {"impi": "pip failed"}})
        self.assertIn("**impi**: not run (pip failed)", md)

    def test_markdown_says_how_collectives_were_paced(self):
        coll = doc("gather", "latency_us", [(4, 1.0)])
        coll["kind"] = "collective"
        agg = cmp.aggregate([(cmp.OURS, coll)])
        md = cmp.render_markdown(agg, {"np": 4, "reps": 1})
        self.assertIn("an untimed barrier after every call", md)
        md = cmp.render_markdown(agg, {"np": 4, "reps": 1, "back_to_back": True})
        self.assertIn("calls back to back (-b)", md)
        self.assertNotIn("(-r)", md)
        md = cmp.render_markdown(agg, {"np": 4, "reps": 1, "back_to_back": True, "rotate_root": True})
        self.assertIn("the root moves to the next rank at every call (-r)", md)
        md = cmp.render_markdown(cmp.aggregate([(cmp.OURS, doc("bw", "bandwidth_MBps", [(8, 1.0)]))]),
                                 {"np": 2, "reps": 1})
        self.assertNotIn("Collectives:", md)

    def test_table(self):
        out = cmp.render_table([doc("latency", "latency_us", [(1, 1.5), (8, 2.0)]),
                                doc("bw", "bandwidth_MBps", [(8, 300.0)])])
        lines = out.splitlines()
        self.assertEqual(len(lines), 3)
        self.assertIn("n/a", lines[1])
        self.assertIn("300.0", lines[2])

    def test_run_order_rotates_the_first(self):
        libs = ["ethermpi", "mpich", "openmpi", "impi"]
        firsts = [cmp.run_order(libs, rep, case)[0] for rep in (1, 2) for case in range(4)]
        self.assertEqual(sorted(firsts), sorted(libs * 2))
        for rep in (1, 2, 3):
            for case in range(5):
                self.assertEqual(sorted(cmp.run_order(libs, rep, case)), sorted(libs))

    def test_fmt_size(self):
        self.assertEqual(cmp.fmt_size(1 << 20), "1M")
        self.assertEqual(cmp.fmt_size(3000), "3000")
        self.assertEqual(cmp.fmt_size(-1), "-")


class CaseListsInSync(unittest.TestCase):
    """bench/CMakeLists.txt registers one ctest per case; main.c is the truth."""

    def test_cmake_lists_match_main_c(self):
        import re
        with open(os.path.join(ROOT, "bench", "src", "main.c")) as f:
            src = f.read()
        plain = set(re.findall(r'\{"(\w+)", KIND_', src))
        coll = set(re.findall(r'COLL\("(\w+)"', src))
        with open(os.path.join(ROOT, "bench", "CMakeLists.txt")) as f:
            cm = f.read()
        listed = set()
        for var in ("PT2PT", "COLL", "RMA", "STARTUP", "DATATYPE"):
            m = re.search(r"set\(EMPI_BENCH_%s_CASES([^)]*)\)" % var, cm)
            self.assertIsNotNone(m, var)
            listed |= set(m.group(1).split())
        self.assertEqual(listed, plain | coll)


class ReportDir(unittest.TestCase):
    def test_report_from_saved_json(self):
        with tempfile.TemporaryDirectory() as d:
            for lib in ("mpich", "openmpi"):
                os.makedirs(os.path.join(d, "raw", lib))
                for rep in (1, 2):
                    with open(os.path.join(DATA, "latency.json")) as f:
                        js = json.load(f)
                    with open(os.path.join(d, "raw", lib, "latency.rep%d.json" % rep), "w") as f:
                        json.dump(js, f)
            rc = cmp.main(["report", d, "--no-plots"])
            self.assertEqual(rc, 0)
            with open(os.path.join(d, "report.md")) as f:
                self.assertIn("## latency", f.read())


class Schema(unittest.TestCase):
    def setUp(self):
        with open(vj.SCHEMA) as f:
            self.schema = json.load(f)

    def test_samples_validate(self):
        for name in sorted(os.listdir(DATA)):
            with open(os.path.join(DATA, name)) as f:
                d = json.load(f)
            self.assertEqual(vj.validate(d, self.schema), [], name)
            self.assertEqual(vj.mini_validate(d, self.schema), [], name)

    def test_bad_documents_rejected(self):
        with open(os.path.join(DATA, "latency.json")) as f:
            good = json.load(f)
        bad = copy.deepcopy(good)
        bad["status"] = "maybe"
        self.assertTrue(vj.mini_validate(bad, self.schema))
        bad = copy.deepcopy(good)
        del bad["results"][0]["size"]
        self.assertTrue(vj.mini_validate(bad, self.schema))
        bad = copy.deepcopy(good)
        bad["results"][0]["latency_us"] = "fast"
        self.assertTrue(vj.mini_validate(bad, self.schema))


if __name__ == "__main__":
    unittest.main()
