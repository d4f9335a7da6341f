"""Unit tests of tools/insn_profile.py (make profile): the load address from an Image
header as QEMU's loader computes it, attribution of counted blocks to functions, operations from
RESULT lines. Inputs are made up here; the expected figures are worked out by hand."""
import collections
import os
import struct
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import insn_profile as prof  # noqa: E402

# nm -n -S: two sized functions with a gap, an unsized one, data, a mapping symbol.
NM = """\
0000000000001000 0000000000000010 T alpha
0000000000001010 0000000000000008 t beta
0000000000001020 T gamma
0000000000001030 0000000000000004 T delta
0000000000001030 t $x
0000000000002000 0000000000000100 D table
"""


def header(text_offset, magic=b"ARM\x64"):
    h = bytearray(64)
    struct.pack_into("<QQ", h, 8, text_offset, 0x100000)
    h[56:60] = magic
    return bytes(h)


class LoadAddress(unittest.TestCase):
    def test_zero_offset_moves_past_the_boot_stub(self):
        self.assertEqual(prof.load_address(header(0)), 0x40200000)

    def test_large_offset_kept(self):
        self.assertEqual(prof.load_address(header(0x80000)), 0x40080000)

    def test_not_an_image(self):
        with self.assertRaises(ValueError):
            prof.load_address(header(0, magic=b"ELF\x7f"))


class Attribution(unittest.TestCase):
    def setUp(self):
        self.syms = prof.Symbols(NM)

    def test_names(self):
        s = self.syms
        self.assertEqual(s.name_of(0x1000), "alpha")
        self.assertEqual(s.name_of(0x100c), "alpha")
        self.assertEqual(s.name_of(0x1010), "beta")
        self.assertEqual(s.name_of(0x1018), prof.OUTSIDE)  # past beta's 8 bytes
        self.assertEqual(s.name_of(0x102c), "gamma")  # unsized: up to the next symbol
        self.assertEqual(s.name_of(0x1030), "delta")  # not the $x mapping symbol
        self.assertEqual(s.name_of(0x2000), prof.OUTSIDE)  # data
        self.assertEqual(s.name_of(0xff0), prof.OUTSIDE)
        self.assertEqual(s.by_name["table"], 0x2000)

    def test_blocks_split_across_symbols(self):
        base = 0x40200000
        # 3 instructions from alpha+8: alpha, alpha, beta; run 5 times. One of delta's run 7.
        blocks, hdr = prof.parse_counts("# tbcount windows=1 windowed=1\n"
                                        "40201008 3 5\n40201030 1 7\n50000000 2 1\n")
        self.assertEqual(hdr["windows"], "1")
        calls = collections.Counter()
        per = prof.attribute(blocks, self.syms, base, calls)
        self.assertEqual(calls, {"delta": 7})  # the alpha+8 block is not a call
        self.assertEqual(per["alpha"], 10)
        self.assertEqual(per["beta"], 5)
        self.assertEqual(per["delta"], 7)
        self.assertEqual(per[prof.OUTSIDE], 2)
        self.assertEqual(sum(per.values()), 3 * 5 + 7 + 2)


class Operations(unittest.TestCase):
    def test_pingpong(self):
        self.assertEqual(prof.ops_of(["RESULT pingpong loops=20000 usec_per_op=13.070"]),
                         (20000, "round trip"))

    def test_hackbench_messages(self):
        # 2 groups x 20 senders x 20 receivers x 200 loops.
        self.assertEqual(prof.ops_of(["RESULT energy bench=hackbench cpu=0",
                                      "RESULT hackbench groups=2 loops=200 seconds=0.4"]),
                         (160000, "message"))

    def test_table_shares(self):
        out = prof.table(collections.Counter(a=75, b=25), 5, "op", 10).splitlines()
        self.assertIn("100 instructions in the window, 20 per op", out[0])
        self.assertTrue(out[2].startswith(" 75.00%") and out[2].endswith("a"))
        self.assertIn("15.0", out[2])

    def test_table_calls(self):
        out = prof.table(collections.Counter(a=60), 2, "round trip", 10,
                         collections.Counter(a=4)).splitlines()
        self.assertIn("calls/trip", out[1])
        self.assertEqual(out[2].split(), ["100.00%", "60", "30.0", "2.00", "15.0", "a"])


if __name__ == "__main__":
    unittest.main()
